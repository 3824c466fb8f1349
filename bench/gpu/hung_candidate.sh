#!/usr/bin/env bash
# Issue 36 on the GPU: a hung candidate must cost only its own slot.
#   PART=hang (default): the hand-written Level-2 kernels (ok.py of each task) with two that hang
#     in their check, one in a Python loop and one in a Triton kernel that spins on the GPU,
#     evaluated at --slots 4 under strict with the lock patience off (0) and on (the default,
#     2 s); what every other candidate waited (waited_s), its verdict and median, the wall time,
#     and nvidia-smi's utilisation throughout.
#   PART=redteam: the GPU red team under strict (bench/gpu/redteam.sh): the worker changed.
#   PART=all: both, the hang runs at PATIENCES (default "0 2") first.
#   PART=reference: why --profile reference does not scale with slots: TASKS' first showcase or
#     hand-written kernel each (.device/scale) at --slots 1 and 4 under reference, with each
#     phase's time per candidate, nvidia-smi and vmstat (the CPU) throughout.
# The sandbox's filter (pyseccomp, libseccomp) comes from .device as for bench/gpu/sandbox_cost.sh.
source "$(dirname "$0")/common.sh"
install_sandbox_filter .device/wheels/*.whl
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -lms 500 \
  >"$OUT/smi.csv" 2>&1 &
smi=$!
if [ "${PART:-hang}" = reference ]; then
  vmstat 1 >"$OUT/vmstat.txt" 2>&1 &
  vm=$!
  work=/tmp/adx36ref && rm -rf "$work" && mkdir -p "$work/tasks" "$work/kernels"
  for name in ${TASKS:-1_Conv2D_ReLU_BiasAdd 42_ConvTranspose2d_GlobalAvgPool_BiasAdd_LogSumExp_Sum_Multiply 44_ConvTranspose2d_Multiply_GlobalAvgPool_GlobalAvgPool_Mean 83_Conv3d_GroupNorm_Min_Clamp_Dropout 84_Gemm_BatchNorm_Scaling_Softmax 90_Conv3d_LeakyReLU_Sum_Clamp_GELU 92_Conv2d_GroupNorm_Tanh_HardSwish_ResidualAdd_LogSumExp 18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp}; do
    cp ".device/scale/tasks/$name.py" "$work/tasks/"
    mkdir -p "$work/kernels/$name"
    first=$(ls ".device/scale/kernels/$name/" | head -1)
    cp ".device/scale/kernels/$name/$first" "$work/kernels/$name/"
  done
  for slots in ${SLOTS_LIST:-1 4}; do
    stamp "reference profile at --slots $slots"
    start=$SECONDS
    timeout "${LIMIT_EACH:-200}" "${EVAL[@]}" --profile reference --slots "$slots" --timeout 120 \
      --tasks-dir "$work/tasks" --kernels-dir "$work/kernels" \
      >"$OUT/ref_s$slots.jsonl" 2>"$OUT/ref_s$slots.log"
    stamp "exit $? in $((SECONDS - start)) s ($(wc -l <"$OUT/ref_s$slots.jsonl") results)"
  done
  kill "$vm" 2>/dev/null
  python3 - "$OUT" <<'PY' | tee "$OUT/summary.md"
import json, statistics, sys
from pathlib import Path
out = Path(sys.argv[1])
for f in sorted(out.glob("ref_s*.jsonl")):
    rows = [json.loads(l) for l in f.read_text().splitlines() if l.startswith("{")]
    print(f"## {f.stem}: {len(rows)} results")
    phases = {}
    for r in rows:
        d = r.get("details") or {}
        print(f"- {Path(r['kernel']).parent.name}: {r.get('verdict')} wall {d.get('wall_s')} "
              f"waited {d.get('waited_s')} phases "
              + ", ".join(f"{k} {v:.2f}" for k, v in sorted((d.get('phases') or {}).items())
                          if isinstance(v, (int, float)) and v >= 0.5))
        for k, v in (d.get("phases") or {}).items():
            if isinstance(v, (int, float)):
                phases.setdefault(k, []).append(v)
    print("  medians: " + ", ".join(f"{k} {statistics.median(v):.2f}" for k, v in sorted(phases.items())
                                   if statistics.median(v) >= 0.2))
PY
elif [ "${PART:-hang}" != redteam ]; then
  work=/tmp/adx36 && rm -rf "$work" && mkdir -p "$work/tasks" "$work/kernels"
  for dir in "$KK"/level2/*/; do
    name=$(basename "$dir")
    cp "$KB/level2/$name.py" "$work/tasks/"
    mkdir -p "$work/kernels/$name" && cp "$dir/ok.py" "$work/kernels/$name/ok.py"
  done
  # The two hangs of the workload set (bench/gpu/workload_select.py), on hand-written kernels.
  python3 - "$KK/level2" "$work/kernels" <<'PY'
import sys
sys.path.insert(0, "bench/gpu")
from workload_select import HANG_GPU, HANG_PYTHON
hand, out = sys.argv[1], sys.argv[2]
for task, name, tail in (("12_Gemm_Multiply_LeakyReLU", "hang_python.py", HANG_PYTHON),
                         ("76_Gemm_Add_ReLU", "hang_gpu.py", HANG_GPU)):
    with open(f"{out}/{task}/{name}", "w") as f:
        f.write(open(f"{hand}/{task}/ok.py").read() + tail)
PY
  for patience in ${PATIENCES:-0 2}; do
    stamp "eval at --slots 4, --lock-patience $patience"
    start=$SECONDS
    timeout 280 "${EVAL[@]}" --slots 4 --timeout 40 --lock-patience "$patience" \
      --tasks-dir "$work/tasks" --kernels-dir "$work/kernels" \
      >"$OUT/eval_p$patience.jsonl" 2>"$OUT/eval_p$patience.log"
    stamp "exit $? in $((SECONDS - start)) s ($(wc -l <"$OUT/eval_p$patience.jsonl") results)"
  done
  python3 bench/gpu/hung_candidate_summary.py "$OUT" >"$OUT/summary.md" 2>&1
  cat "$OUT/summary.md"
fi
if [ "${PART:-hang}" = redteam ] || [ "${PART:-hang}" = all ]; then
  PROFILE=strict LIMIT=${LIMIT:-480} bash bench/gpu/redteam.sh
fi
kill "$smi" 2>/dev/null
# At most 8 files come back: everything in one archive, beside the summary and the step log.
tar czf /tmp/issue36.tgz -C "$OUT" . &&
  find "$OUT" -mindepth 1 -type f -not -name summary.md -not -name steps.txt -delete &&
  mv /tmp/issue36.tgz "$OUT/"
