#!/usr/bin/env bash
# Writes the HTML report of a run database and a screenshot of it in headless Chromium:
#   tools/report_screenshot.sh RUN_DB OUT.png [OUT.html]
# docs/report-screenshot.png was made this way from the first H200 search over the showcase
# tasks (bench/gpu/showcase_search.sh). Needs a build (build/adaexplore, or ADAEXPLORE_BIN) and
# chromium-headless-shell (tools/setup.sh --no-build installs it).
set -euo pipefail
db=$1 png=$2 html=${3:-$(mktemp --suffix=.html)}
bin=${ADAEXPLORE_BIN:-$(dirname "$0")/../build/adaexplore}
"$bin" report "$db" --html "$html" >/dev/null
chromium-headless-shell --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --window-size=1300,1500 --virtual-time-budget=5000 --screenshot="$png" "file://$(realpath "$html")" \
  2>/dev/null
echo "report $html, screenshot $png"
