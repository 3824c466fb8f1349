#!/usr/bin/env bash
# Runs clang-tidy (the repository's .clang-tidy, every check an error) over every C++ source,
# using the compile commands of the test build (build-asan, made by tools/test.sh). About 40 min
# of CPU on 2 cores, which is why CI does not run it: run it before a change lands, or pass the
# files you changed (`tools/tidy.sh src/eval/evaluator.cc`).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build-asan/compile_commands.json ]; then
  echo "tidy: no build-asan/compile_commands.json; run ./tools/test.sh first" >&2
  exit 2
fi
if [ "$#" -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files --cached --others --exclude-standard 'src/*.cc' 'bench/*.cc' \
    'tests/*.cc')
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
run-clang-tidy -quiet -p build-asan -j "$(nproc)" "${files[@]}" >"$log" 2>&1 || status=$?
sed -i 's/\x1b\[[0-9;]*m//g' "$log"  # run-clang-tidy colours its output.
grep -E "^/.*(error|warning):" "$log" | sort -u || true
echo "tidy: ${#files[@]} file(s), $(grep -cE "^/.*error:" "$log" || true) error(s), exit status $status"
exit "$status"
