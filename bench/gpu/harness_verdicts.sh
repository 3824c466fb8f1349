#!/usr/bin/env bash
# GPU run 1 for the harness (issue 2): verdicts on hand-written KernelBench candidates, the two
# GPU faults followed by a normal candidate, the paper profile on the wrong variants, and the
# do_bench cross-check of every correct candidate's speedup. Needs tools/device_bundle.sh first
# (carry .device). Writes everything under $OUT; prints tables last.
source "$(dirname "$0")/common.sh"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv | tee "$OUT/gpu.txt"
stamp "smoke"
"${EVAL[@]}" --task examples/tasks/relu.py --kernel examples/kernels/relu/ok.py \
  --kernel examples/kernels/relu/wrong_tail.py >"$OUT/smoke.jsonl" 2>"$OUT/smoke.err"
python3 python/bench/summarize.py "$OUT/smoke.jsonl"
if ! grep -q '"verdict":"correct"' "$OUT/smoke.jsonl"; then
  echo "smoke test failed"; cat "$OUT/smoke.err"; exit 1
fi
for level in level1 level2; do
  stamp "verdicts $level"
  "${EVAL[@]}" --tasks-dir "$KB/$level" --kernels-dir "$KK/$level" \
    >"$OUT/$level.jsonl" 2>"$OUT/$level.err"
done
stamp "faults"
# One slot, so each fault is followed by a normal candidate on the same worker. The illegal
# access kernel is CUDA C++ (about a minute to build), so it keeps the default timeout.
cp "$KK/level1/19_ReLU/ok.py" /tmp/ok_after_fault.py && echo "# after" >>/tmp/ok_after_fault.py
"${EVAL[@]}" --slots 1 --task "$KB/level1/19_ReLU.py" \
  --kernel "$KK/faults/illegal_memory_access.py" --kernel "$KK/level1/19_ReLU/ok.py" \
  >"$OUT/faults.jsonl" 2>"$OUT/faults.err"
"${EVAL[@]}" --slots 1 --timeout 30 --task "$KB/level1/19_ReLU.py" \
  --kernel "$KK/faults/hang.py" --kernel /tmp/ok_after_fault.py \
  >>"$OUT/faults.jsonl" 2>>"$OUT/faults.err"
stamp "paper profile on the wrong variants"
for kernel in "$KK"/level*/*/wrong_*.py; do
  task_dir=$(dirname "$kernel")
  level=$(basename "$(dirname "$task_dir")")
  "${EVAL[@]}" --profile paper --task "$KB/$level/$(basename "$task_dir").py" \
    --kernel "$kernel" >>"$OUT/paper_wrong.jsonl" 2>>"$OUT/paper.err"
done
stamp "do_bench cross-check"
cat "$OUT/level1.jsonl" "$OUT/level2.jsonl" >"$OUT/all.jsonl"
python3 python/bench/do_bench_check.py "$OUT/all.jsonl" --out "$OUT/do_bench.json" \
  >"$OUT/do_bench.txt" 2>"$OUT/do_bench.err"
stamp "done"
echo "== strict verdicts"; python3 python/bench/summarize.py "$OUT/level1.jsonl" "$OUT/level2.jsonl"
echo "== faults"; python3 python/bench/summarize.py "$OUT/faults.jsonl"
echo "== paper profile, wrong variants"; python3 python/bench/summarize.py "$OUT/paper_wrong.jsonl"
echo "== do_bench"; cat "$OUT/do_bench.txt"; tail -3 "$OUT/do_bench.err"
