#!/usr/bin/env bash
# Issue 7 on the GPU: `adaexplore bench` over a Level-2 suite (default .device/l2suite: the
# showcase trees' tasks and the hand-written ones of bench/kernelbench_kernels) with METHODS
# (default adaexplore), the LLM replaced by bench/gpu/showcase_llm.py (real kernels, see
# tools/device_bundle.sh), STEPS per task (default 3), SLOTS evaluations on the GPU at once
# (default 4) on every visible GPU. Each task's baseline (eager and torch.compile) is timed first and cached. The
# database and the cache live in /tmp, so while the machine stays warm, repeating the command
# resumes an interrupted bench (LIMIT seconds per call, default 500) and takes the baselines from
# the cache. The report comes back as Markdown, JSON and HTML.
source "$(dirname "$0")/common.sh"
SUITE=${SUITE:-.device/l2suite}
STEPS=${STEPS:-3}
METHODS=${METHODS:-adaexplore}
SLOTS=${SLOTS:-4}
LIMIT=${LIMIT:-500}
DB=${DB:-/tmp/adx-bench.sqlite}
stamp "bench: $SUITE ($(ls "$SUITE"/*.py | wc -l) tasks), $METHODS, $STEPS steps per task, $SLOTS slots"
url=$(mktemp)
python3 bench/gpu/showcase_llm.py "$SUITE/kernels" "$url" &
llm=$!
for _ in $(seq 100); do [ -s "$url" ] && break; sleep 0.1; done
OPENAI_BASE_URL=$(cat "$url") OPENAI_API_KEY=scripted TRITON_CACHE_DIR=/tmp/adx-triton \
  timeout -s INT "$LIMIT" "$BIN" bench --suite "$SUITE" --method "$METHODS" \
  --steps "$STEPS" --llm openai:scripted --python python3 --slots "$SLOTS" \
  --db "$DB" --out /tmp/bench-out --html "$OUT/bench.html" \
  >"$OUT/bench.md" 2>>"$OUT/bench.log"
stamp "bench exited with $?"
kill $llm 2>/dev/null
"$BIN" report --db "$DB" --json >"$OUT/bench.json" 2>/dev/null
python3 -c "import sqlite3, sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))" \
  "$DB" "$OUT/bench.sqlite"
grep -E "^bench:" "$OUT/bench.log" | tail -8
cat "$OUT/bench.md"
