#!/usr/bin/env bash
# Issue 7 on the GPU: `adaexplore bench` over the Level-2 tasks of the reference run's showcase
# trees with two methods, the LLM replaced by bench/gpu/showcase_llm.py (the trees' real
# kernels), then the report as Markdown and HTML. STEPS per task (default 3), METHODS (default
# adaexplore,ps); the bench is interrupted after LIMIT seconds (default 480), and repeating the
# command would resume it.
source "$(dirname "$0")/common.sh"
STEPS=${STEPS:-3}
METHODS=${METHODS:-adaexplore,ps}
LIMIT=${LIMIT:-480}
stamp "bench: $METHODS, $STEPS steps per task"
url=$(mktemp)
python3 bench/gpu/showcase_llm.py .device/showcase/kernels "$url" &
llm=$!
for _ in $(seq 100); do [ -s "$url" ] && break; sleep 0.1; done
OPENAI_BASE_URL=$(cat "$url") OPENAI_API_KEY=scripted TRITON_CACHE_DIR=$(mktemp -d) \
  timeout -s INT "$LIMIT" "$BIN" bench --suite .device/showcase --method "$METHODS" \
  --steps "$STEPS" --llm openai:scripted --python python3 --no-cache \
  --db "$OUT/bench.sqlite" --out /tmp/bench-out --html "$OUT/bench.html" \
  >"$OUT/bench.md" 2>"$OUT/bench.log"
stamp "bench exited with $?"
kill $llm 2>/dev/null
tail -3 "$OUT/bench.log"
cat "$OUT/bench.md"
