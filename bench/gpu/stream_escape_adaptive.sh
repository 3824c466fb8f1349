#!/usr/bin/env bash
# Issue 37 on the H200: timing that says what it measures.
#   PART=redteam: the GPU red team under strict, then paper (bench/gpu/redteam.sh), with the
#     side-stream variants of issue 37 (c07_side_stream_mid, _small, _nowait and
#     legit_side_stream_joined).
#   PART=counts: six correct real kernels of a millisecond or more from the workload
#     (.device/workload) under strict at 4 slots, adaptive (the default: 20 to 100 runs, 0.5%,
#     1 s) and with the fixed 100 runs (--timing-precision 0 --timing-budget-ms 0): their
#     medians, runs, noise figures and timing seconds (bench/gpu/adaptive_compare.py).
#   PART=all (the default): both, counts first. PROFILES="strict" runs the red team under strict
#     only.
# Carry .device/bin, .device/lib, .device/workload and .device/wheels.
source "$(dirname "$0")/common.sh"
install_sandbox_filter
nvidia-smi --query-gpu=timestamp,utilization.gpu,clocks.sm,clocks.mem,temperature.gpu \
  --format=csv -lms 500 >"$OUT/smi.csv" 2>&1 &
smi=$!
part=${PART:-all}
if [ "$part" = counts ] || [ "$part" = all ]; then
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
    timeout "${LIMIT:-90}" "${EVAL[@]}" --profile strict --slots 4 --timeout 60 "${extra[@]}" \
      --tasks-dir "$set_dir/tasks" --kernels-dir "$set_dir/kernels" \
      >"$OUT/strict_$mode.jsonl" 2>"$OUT/strict_$mode.log"
    stamp "strict $mode ends: exit $?, $(wc -l <"$OUT/strict_$mode.jsonl") results"
  done
  python3 bench/gpu/adaptive_compare.py "$OUT/strict_adaptive.jsonl" "$OUT/strict_fixed.jsonl" |
    tee "$OUT/adaptive.md"
fi
if [ "$part" = redteam ] || [ "$part" = all ]; then
  for profile in ${PROFILES:-strict paper}; do
    PROFILE=$profile LIMIT=${REDTEAM_LIMIT:-240} bash bench/gpu/redteam.sh
    mv "$OUT/redteam.txt" "$OUT/redteam_$profile.txt"
    mv "$OUT/redteam_results.jsonl" "$OUT/redteam_results_$profile.jsonl"
  done
fi
kill "$smi" 2>/dev/null
tar czf /tmp/issue37.tgz -C "$OUT" . &&
  find "$OUT" -mindepth 1 -type f -not -name steps.txt -not -name adaptive.md -delete &&
  mv /tmp/issue37.tgz "$OUT/"
