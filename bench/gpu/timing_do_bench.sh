#!/usr/bin/env bash
# GPU run 3 for the harness (issue 2): after the timing change (events on the stream, flush first,
# device-wide sync after), re-check agreement with do_bench, measure throughput against a fresh
# process per candidate, and repeatability on the shortest kernels.
source "$(dirname "$0")/common.sh"
pick() {  # pick DEST level/task kernel...
  local dest=$1 t=$2; shift 2
  mkdir -p "$dest/tasks" "$dest/kernels/$(basename "$t")"
  cp "$KB/$t.py" "$dest/tasks/"
  for k in "$@"; do cp "$KK/$t/$k.py" "$dest/kernels/$(basename "$t")/"; done
}
for t in level1/40_LayerNorm level1/88_MinGPTNewGelu level1/23_Softmax level1/36_RMSNorm_ \
         level1/47_Sum_reduction_over_a_dimension level2/12_Gemm_Multiply_LeakyReLU \
         level2/86_Matmul_Divide_GELU level2/90_Conv3d_LeakyReLU_Sum_Clamp_GELU; do
  pick /tmp/a "$t" ok
done
pick /tmp/c level1/88_MinGPTNewGelu ok wrong_constant
pick /tmp/c level2/12_Gemm_Multiply_LeakyReLU ok wrong_tf32
pick /tmp/c level2/76_Gemm_Add_ReLU ok wrong_missing_bias
pick /tmp/c level2/86_Matmul_Divide_GELU ok wrong_drop_last_row
for t in level1/88_MinGPTNewGelu level1/40_LayerNorm level2/86_Matmul_Divide_GELU \
         level2/12_Gemm_Multiply_LeakyReLU; do
  pick /tmp/b "$t" ok
done

stamp "A: eval + do_bench"
timeout 60 "$BIN" eval --python python3 --no-cache --json --tasks-dir /tmp/a/tasks \
  --kernels-dir /tmp/a/kernels >"$OUT/a.jsonl" 2>>"$OUT/errors.txt"
timeout 40 python3 python/bench/do_bench_check.py "$OUT/a.jsonl" --out "$OUT/do_bench.json" \
  >"$OUT/do_bench.txt" 2>>"$OUT/errors.txt"
cat "$OUT/do_bench.txt"
stamp "C: throughput"
timeout 140 .device/bench-bin/eval_throughput --python python3 --tasks-dir /tmp/c/tasks \
  --kernels-dir /tmp/c/kernels --json-out "$OUT/throughput.json" >"$OUT/throughput.txt" \
  2>>"$OUT/errors.txt"
cat "$OUT/throughput.txt"
stamp "B: repeatability"
timeout 100 .device/bench-bin/eval_repeatability --python python3 --tasks-dir /tmp/b/tasks \
  --kernels-dir /tmp/b/kernels --repeat 5 --json-out "$OUT/repeat.json" >"$OUT/repeat.txt" \
  2>>"$OUT/errors.txt"
cat "$OUT/repeat.txt"
stamp "done"
python3 python/bench/summarize.py "$OUT/a.jsonl"
