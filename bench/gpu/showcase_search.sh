#!/usr/bin/env bash
# Issue 5 on the GPU: `adaexplore run` over the Level-2 tasks of the reference run's showcase
# trees, the LLM replaced by bench/gpu/showcase_llm.py (the trees' real kernels, replies instant),
# all tasks at once on one GPU; GPU utilisation sampled by nvidia-smi. STEPS (default 10) per
# task, SLOTS evaluations at once on the GPU (default: adaexplore's, 2); the run is interrupted
# after LIMIT seconds (default 420) and its figures read from the run database either way.
source "$(dirname "$0")/common.sh"
STEPS=${STEPS:-10}
LIMIT=${LIMIT:-420}
SLOTS=${SLOTS:-2}
tag=showcase-slots$SLOTS
stamp "showcase run: $STEPS steps per task, $SLOTS slots"
python3 bench/gpu/showcase_llm.py .device/showcase/kernels "$OUT/$tag-llm-url" &
llm=$!
for _ in $(seq 100); do [ -s "$OUT/$tag-llm-url" ] && break; sleep 0.1; done
nvidia-smi --query-gpu=timestamp,utilization.gpu --format=csv,noheader -lms 100 >"$OUT/$tag-smi.csv" &
smi=$!
# No result cache and a fresh Triton cache: runs with other settings must not reuse this one's work.
OPENAI_BASE_URL=$(cat "$OUT/$tag-llm-url") OPENAI_API_KEY=scripted \
  TRITON_CACHE_DIR=$(mktemp -d) timeout -s INT "$LIMIT" \
  "$BIN" run --task .device/showcase --llm openai:scripted --steps "$STEPS" --slots "$SLOTS" \
  --python python3 --no-cache --db "$OUT/$tag-run.sqlite" --out "$OUT/$tag-best" --json \
  >"$OUT/$tag-summary.json" 2>"$OUT/$tag-run.log"
stamp "run exited with $?"
kill $smi $llm 2>/dev/null
tail -5 "$OUT/$tag-run.log"
python3 bench/gpu/run_figures.py "$OUT/$tag-run.sqlite" "$OUT/$tag-smi.csv" | tee "$OUT/$tag-figures.txt"
