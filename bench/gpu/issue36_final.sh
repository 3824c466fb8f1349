#!/usr/bin/env bash
# Issue 36's last H200 batch, after the adaptive timing (step 3): the GPU red team under strict
# (the timing changed), then six correct real kernels of a millisecond or more from the workload
# (.device/workload) under strict at 4 slots, adaptive (the default) and with the fixed 100 runs
# (--timing-precision 0 --timing-budget-ms 0): their medians, runs and the time each took.
# Carry .device/bin, .device/lib, .device/workload and .device/wheels.
source "$(dirname "$0")/common.sh"
install_sandbox_filter
PROFILE=strict LIMIT=${REDTEAM_LIMIT:-210} bash bench/gpu/redteam.sh
set_dir=/tmp/adx-adaptive
mkdir -p "$set_dir/tasks"
for pick in 29_Matmul_Mish_Mish/first1_step3 40_Matmul_Scaling_ResidualAdd/best_step150 \
  44_ConvTranspose2d_Multiply_GlobalAvgPool_GlobalAvgPool_Mean/first0_step1 \
  63_Gemm_ReLU_Divide/first1_step3 70_Gemm_Sigmoid_Scaling_ResidualAdd/first0_step1 \
  44_MiniGPTBlock/own_model; do
  task=${pick%%/*}
  mkdir -p "$set_dir/kernels/$task"
  cp ".device/workload/tasks/$task.py" "$set_dir/tasks/"
  cp ".device/workload/kernels/$pick.py" "$set_dir/kernels/$task/"
done
for mode in adaptive fixed; do
  extra=()
  [ "$mode" = fixed ] && extra=(--timing-precision 0 --timing-budget-ms 0)
  stamp "strict $mode at 4 slots begins"
  timeout "${LIMIT:-60}" "${EVAL[@]}" --profile strict --slots 4 --timeout 60 "${extra[@]}" \
    --tasks-dir "$set_dir/tasks" --kernels-dir "$set_dir/kernels" \
    >"$OUT/strict_$mode.jsonl" 2>"$OUT/strict_$mode.log"
  stamp "strict $mode ends: exit $?, $(wc -l <"$OUT/strict_$mode.jsonl") results"
done
python3 bench/gpu/adaptive_compare.py "$OUT/strict_adaptive.jsonl" "$OUT/strict_fixed.jsonl" |
  tee "$OUT/adaptive.md"
tar czf /tmp/issue36_final.tgz -C "$OUT" . && mv /tmp/issue36_final.tgz "$OUT/"
