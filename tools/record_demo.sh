#!/usr/bin/env bash
# Re-records examples/recordings/relu.jsonl, the LLM replies the README's first command replays:
# a search on examples/tasks/relu.py against the scripted LLM of the end-to-end tests
# (tests/e2e/scripted_llm.py: whole kernels, some wrong, one without code; reviser advice; real
# search/replace edits). Needs tools/setup.sh first. Nothing here calls a real LLM.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
.venv/bin/python tests/e2e/scripted_llm.py "$work/url" &
server=$!
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
rm -f examples/recordings/relu.jsonl
OPENAI_BASE_URL=$(cat "$work/url") OPENAI_API_KEY=scripted XDG_CACHE_HOME="$work/cache" \
  ./build/adaexplore run --task examples/tasks/relu.py --llm openai:scripted --steps 12 \
  --device cpu --db "$work/run.sqlite" --out "$work/out" --record examples/recordings/relu.jsonl
echo "recorded $(wc -l < examples/recordings/relu.jsonl) exchanges"
