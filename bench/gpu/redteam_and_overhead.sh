#!/usr/bin/env bash
# Issue 3 on a two-GPU machine: the whole red team (bench/gpu/redteam.sh) on GPU 0 and, beside it
# on GPU 1, what the integrity checks add to an evaluation (bench/integrity_overhead, one slot)
# over the correct hand-written kernels of 8 KernelBench tasks.
source "$(dirname "$0")/common.sh"
CUDA_VISIBLE_DEVICES=0 timeout "${REDTEAM_LIMIT:-400}" bash bench/gpu/redteam.sh >"$OUT/redteam_tail.txt" 2>&1 &
redteam=$!
for t in level1/19_ReLU level1/23_Softmax level1/36_RMSNorm_ level1/40_LayerNorm \
         level1/88_MinGPTNewGelu level2/12_Gemm_Multiply_LeakyReLU level2/1_Conv2D_ReLU_BiasAdd \
         level2/86_Matmul_Divide_GELU; do
  mkdir -p /tmp/ov/tasks "/tmp/ov/kernels/$(basename "$t")"
  cp "$KB/$t.py" /tmp/ov/tasks/
  cp "$KK/$t/ok.py" "/tmp/ov/kernels/$(basename "$t")/"
done
stamp "integrity overhead"
CUDA_VISIBLE_DEVICES=${OVERHEAD_GPU:-1} timeout "${OVERHEAD_LIMIT:-330}" \
  .device/bench-bin/integrity_overhead --python python3 --slots 1 --tasks-dir /tmp/ov/tasks \
  --kernels-dir /tmp/ov/kernels --json-out "$OUT/overhead.json" >"$OUT/overhead.txt" \
  2>>"$OUT/overhead_errors.txt"
wait $redteam
tail -40 "$OUT/redteam_tail.txt"
cat "$OUT/overhead.txt"
stamp "done"
