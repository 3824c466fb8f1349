#!/usr/bin/env bash
# Issue 40 on the GPU: one showcase task searched with the LLM replaced by
# bench/gpu/showcase_llm.py (the reference tree's real kernels) answering after a normal
# LATENCY_MEAN +- LATENCY_SD seconds (default 8 +- 4: about a quarter of a reasoning model's 30 +- 15,
# so that K = 1 fits the 10-minute call), STEPS steps (default 24) at --in-flight 1 and at
# --in-flight K (default 4). The two runs go side by side on the one GPU (each its own workers,
# SLOTS slots each) to fit the call; nvidia-smi samples the GPU for both. Figures per run from the
# run database (bench/gpu/run_figures.py) and the wall times.
source "$(dirname "$0")/common.sh"
TASK=${TASK:-40_Matmul_Scaling_ResidualAdd}
SHOWCASE=${SHOWCASE:-.device/showcase}
STEPS=${STEPS:-24}
K=${K:-4}
SLOTS=${SLOTS:-2}
LIMIT=${LIMIT:-540}
LATENCY_MEAN=${LATENCY_MEAN:-8}
LATENCY_SD=${LATENCY_SD:-4}
one=/tmp/adx-issue40-task
rm -rf "$one" && mkdir -p "$one" && cp "$SHOWCASE/$TASK.py" "$one/"
python3 bench/gpu/showcase_llm.py "$SHOWCASE/kernels" "$OUT/llm-url" "$LATENCY_MEAN" "$LATENCY_SD" &
llm=$!
for _ in $(seq 100); do [ -s "$OUT/llm-url" ] && break; sleep 0.1; done
nvidia-smi --query-gpu=timestamp,utilization.gpu --format=csv,noheader -lms 200 >"$OUT/smi.csv" &
smi=$!
search() {  # K
  local tag=k$1 start end
  start=$(date +%s.%N)
  OPENAI_BASE_URL=$(cat "$OUT/llm-url") OPENAI_API_KEY=scripted XDG_CACHE_HOME=/tmp/adx-cache-$tag \
    TRITON_CACHE_DIR=$(mktemp -d) timeout -s INT "$LIMIT" \
    "$BIN" run --task "$one" --llm openai:scripted --steps "$STEPS" --in-flight "$1" \
    --slots "$SLOTS" --python python3 --no-cache --db "$OUT/$tag-run.sqlite" --out "$OUT/$tag-best" \
    --json >"$OUT/$tag-summary.json" 2>"$OUT/$tag-run.log"
  local rc=$?
  end=$(date +%s.%N)
  stamp "K=$1 exited with $rc after $(python3 -c "print(round($end - $start, 1))") s"
}
stamp "issue 40: $TASK, $STEPS steps, latency $LATENCY_MEAN +- $LATENCY_SD s, K=1 and K=$K side by side"
search 1 &
one_pid=$!
search "$K" &
k_pid=$!
wait $one_pid $k_pid
kill $smi $llm 2>/dev/null
for tag in k1 "k$K"; do
  echo "== $tag" | tee -a "$OUT/figures.txt"
  python3 bench/gpu/run_figures.py "$OUT/$tag-run.sqlite" | tee -a "$OUT/figures.txt"
  python3 - "$OUT/$tag-run.sqlite" <<'PY' | tee -a "$OUT/figures.txt"
import json, sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT node, parent, move, verdict, speedup, result FROM nodes ORDER BY node").fetchall()
plans = [json.loads(r[5]).get("plan", {}) for r in rows]
print("steps", len(rows), "numbers", sorted(p.get("step") for p in plans))
print("planned with others in flight", sum(1 for p in plans if p.get("in_flight")))
best = max((r[4] or 0) for r in rows if r[3] == "correct") if any(r[3] == "correct" for r in rows) else None
print("best speedup", best)
for r, p in zip(rows, plans):
    print(r[0], r[1], r[2], r[3], r[4], "step", p.get("step"), "seen", p.get("seen"),
          "in_flight", [(o["parent"], o["move"][0]) for o in p.get("in_flight", [])])
PY
done
stamp "issue 40 done"
tar -czf "$OUT/issue40.tar.gz" -C "$OUT" --exclude issue40.tar.gz . 2>/dev/null
