#!/usr/bin/env bash
# Strict's GPU-time speedups (the GPU's own timeline of every timed run, CUPTI) on the kernels
# where the call's time did not settle: microsecond kernels whose Python launch dominates.
# The microsecond set: three correct large-step kernels of the showcase tree of Level-2
# 18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp (about 24 us of GPU time) and a ReLU of 16k
# elements (bench/gpu/us_kernels, about 2 us); beside it a FlashInfer GQA paged-decode kernel
# (bench/gpu/us_kernels, on the dataset's synthetic workloads). Each PART is one call, well
# inside the 10-minute limit:
#   PART=alone (default): the GPU red team under strict, the set's evaluations 1 and 2 alone
#     (--slots 1), the GQA kernel once;
#   PART=slots: evaluation 3 alone, then three at --slots 4 beside heavy Level-2 kernels (convs);
#   PART=checks: tests/sandbox/test_gpu_time.py (host work, CUPTI switched off, work run during
#     the head start's spin), the head start's GPU test, TritonBench-G operators 1-20 with their
#     own code (0.95-1.05x expected), the hand-written Level-2 kernels under strict (verdicts;
#     the GPU, call and kernel scopes side by side);
#   PART=paper: the red team under paper, tests/sandbox/test_judge_reach.py;
#   PART=integrity: the red team under paper, then under strict (after a change to the worker);
#   PART=strict_tb: TritonBench-G operators 1-20 (1-$TB_LAST) with their own code, then the red
#     team under strict (1-20 hold 13 operators whose references are sound: TB_LAST=30 or so
#     for 20 of them, with TB_LIMIT to match);
#   PART=tb_paper: TritonBench-G operators 1-$TB_LAST with their own code, then the red team under
#     paper;
#   PART=tb: TritonBench-G operators $TB_FIRST-$TB_LAST (default 1-20) with their own code alone;
#   PART=paper_us: the red team under paper, the microsecond set's evaluations 1 (with GQA) and 2
#     alone.
# Everything goes into one archive as it is made, with steps.txt and summary.md beside it.
source "$(dirname "$0")/common.sh"
install_sandbox_filter
if ! python3 -c "import pytest" 2>/dev/null; then  # The image may lack it (redteam.sh does the same).
  python3 -m pip install --quiet --no-index --find-links .device/wheels --target /tmp/adx-pytest \
    pytest >>"$OUT/setup.txt" 2>&1
  export PYTHONPATH=/tmp/adx-pytest:$PYTHONPATH
fi
{ uname -r; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "from cupti import cupti; print('cupti-python ok', cupti.get_timestamp())"; } \
  >>"$OUT/setup.txt" 2>&1
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used,clocks.sm --format=csv -lms 500 \
  >"$OUT/smi.csv" 2>&1 &
smi=$!
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
pack() { tar czf /tmp/gpu_time.tgz -C "$OUT" --exclude gpu_time.tgz . && mv /tmp/gpu_time.tgz "$OUT/"; }
work=/tmp/adx-gpu-time
rm -rf "$work" && mkdir -p "$work"

us_set() {  # The microsecond set: $work/us/{tasks,kernels}, $work/gqa (a dataset layout).
  mkdir -p "$work/us/tasks" "$work/us/kernels/relu_16k"
  python3 - "$work/us" <<'PY'
import json, os, shutil, sys
out, task = sys.argv[1], "18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp"
shutil.copy(f".device/showcase/{task}.py", f"{out}/tasks/")
os.makedirs(f"{out}/kernels/{task}")
nodes = [n for n in json.load(open(f".device/showcase/kernels/{task}.json"))
         if n["created_by"] == "large_step" and n["code"] and n["release_correct"]][:3]
for n in nodes:
    open(f"{out}/kernels/{task}/s{n['step']:03d}.py", "w").write(n["code"])
print(task, [n["step"] for n in nodes])
PY
  cp bench/gpu/us_kernels/relu_16k.py "$work/us/tasks/"
  cp bench/gpu/us_kernels/relu_16k_triton.py "$work/us/kernels/relu_16k/"
  cp -r .device/gqa "$work/gqa"
  mkdir -p "$work/gqa_kernels/gqa_paged_decode_h32_kv8_d128_ps1"
  cp bench/gpu/us_kernels/gqa_paged_decode_h32_kv8_d128_ps1_triton.py \
    "$work/gqa_kernels/gqa_paged_decode_h32_kv8_d128_ps1/"
  # Heavy neighbours for --slots 4: the hand-written conv kernels of Level 2.
  mkdir -p "$work/heavy/tasks" "$work/heavy/kernels"
  for t in 1_Conv2D_ReLU_BiasAdd 57_Conv2d_ReLU_HardSwish 90_Conv3d_LeakyReLU_Sum_Clamp_GELU; do
    cp "$KB/level2/$t.py" "$work/heavy/tasks/"
    mkdir -p "$work/heavy/kernels/$t" && cp "$KK/level2/$t/ok.py" "$work/heavy/kernels/$t/"
  done
}

alone() {  # N [gqa]: the microsecond set's evaluation N alone (--slots 1), with the GQA kernel.
  stamp "microsecond set alone, evaluation $1"
  timeout 120 "${EVAL[@]}" --slots 1 --tasks-dir "$work/us/tasks" \
    --kernels-dir "$work/us/kernels" >"$OUT/us_alone_$1.jsonl" 2>"$OUT/us_alone_$1.log"
  if [ "${2:-}" = gqa ]; then
    timeout 120 "${EVAL[@]}" --slots 1 --tasks-dir "$work/gqa/definitions/gqa_paged" \
      --kernels-dir "$work/gqa_kernels" >>"$OUT/us_alone_$1.jsonl" 2>>"$OUT/us_alone_$1.log"
  fi
  stamp "exit $? ($(wc -l <"$OUT/us_alone_$1.jsonl") results)"
  pack
}

slots4() {  # N: evaluation N at --slots 4 beside the heavy kernels.
  mkdir -p "$work/mixed/tasks" "$work/mixed/kernels"
  cp "$work"/us/tasks/* "$work"/heavy/tasks/* "$work/mixed/tasks/"
  cp -r "$work"/us/kernels/* "$work"/heavy/kernels/* "$work/mixed/kernels/"
  stamp "microsecond set at --slots 4 beside heavy kernels, evaluation $1"
  timeout 150 "${EVAL[@]}" --slots 4 --tasks-dir "$work/mixed/tasks" \
    --kernels-dir "$work/mixed/kernels" >"$OUT/us_slots4_$1.jsonl" 2>"$OUT/us_slots4_$1.log"
  stamp "exit $? ($(wc -l <"$OUT/us_slots4_$1.jsonl") results)"
  pack
}

level2() {
  IDS2=${IDS2:-1,12,14,53,56,57,59,68,76,81,86,90,95}
  stamp "eval level 2 (strict)"
  timeout "${LIMIT:-150}" "${EVAL[@]}" --level 2 --problem "$IDS2" --suite-dir "$KB" \
    --kernels-dir "$KK/level2" >"$OUT/eval_l2.jsonl" 2>"$OUT/eval_l2.log"
  stamp "exit $? ($(wc -l <"$OUT/eval_l2.jsonl") results)"
  pack
}

sandbox() {  # FILE
  stamp "$1 on the GPU"
  timeout 300 python3 -m pytest -q -p no:cacheprovider "$1" --adaexplore-binary "$BIN" \
    --sandbox-device cuda --sandbox-python python3 -rfEs >"$OUT/sandbox_$(basename "$1" .py).txt" 2>&1
  stamp "exit $?: $(tail -1 "$OUT/sandbox_$(basename "$1" .py).txt")"
  pack
}

redteam() {  # PROFILE
  PROFILE=$1 LIMIT=${RT_LIMIT:-250} bash bench/gpu/redteam.sh >/dev/null 2>&1
  mv "$OUT/redteam.txt" "$OUT/redteam_$1.txt"
  mv "$OUT/redteam_results.jsonl" "$OUT/redteam_$1_results.jsonl" 2>/dev/null
  stamp "red team $1: $(tail -1 "$OUT/redteam_$1.txt")"
  pack
}

tritonbench() {
  python3 -m pip install -q --no-index --no-deps --target /tmp/adx-site \
    .device/wheels/flashinfer/*.whl >>"$OUT/setup.txt" 2>&1
  mkdir -p "$work/tb"
  python3 - "$work/tb" "${TB_FIRST:-1}" "${TB_LAST:-20}" <<'PY'
import json, os, shutil, sys
for entry in json.load(open(".device/tritonbench-g/TritonBench_G_v1.index.json")):
    if int(sys.argv[2]) <= entry["adaexplore_problem_id"] <= int(sys.argv[3]):
        name = entry["file"][:-3]
        os.makedirs(f"{sys.argv[1]}/{name}")
        shutil.copy(f".device/tritonbench-g/tasks/{entry['file']}", f"{sys.argv[1]}/{name}/own_code.py")
PY
  stamp "TritonBench-G ${TB_FIRST:-1}-${TB_LAST:-20}, their own code as candidates"
  timeout "${TB_LIMIT:-240}" "${EVAL[@]}" --slots 4 --trials 3 --timed-runs 30 --warmup 5 \
    --timeout 120 --suite tritonbench-g --suite-dir .device/tritonbench-g \
    --problem "${TB_FIRST:-1}-${TB_LAST:-20}" \
    --kernels-dir "$work/tb" >"$OUT/tritonbench.jsonl" 2>"$OUT/tritonbench.log"
  stamp "exit $? ($(wc -l <"$OUT/tritonbench.jsonl") results)"
  pack
}

python3 -m pip install --quiet --no-index --no-deps --target /tmp/adx-site \
  .device/wheels/flashinfer/*.whl >>"$OUT/setup.txt" 2>&1  # GQA: flashinfer-bench's models.
case "${PART:-alone}" in
  alone)  # The red team under strict (the timing changed), two evaluations alone, GQA once.
    redteam strict
    us_set
    alone 1 gqa
    alone 2
    python3 bench/gpu/gpu_time_summary.py "$OUT" >"$OUT/summary.md" 2>&1 ;;
  slots)  # The third evaluation alone, three at --slots 4 beside heavy kernels.
    us_set
    alone 3
    for i in 1 2 3; do slots4 "$i"; done
    python3 bench/gpu/gpu_time_summary.py "$OUT" >"$OUT/summary.md" 2>&1 ;;
  checks)
    sandbox tests/sandbox/test_gpu_time.py
    stamp "the head start's GPU test"
    PYTHONPATH=python:$PYTHONPATH timeout 60 python3 -m pytest -q -p no:cacheprovider python/tests/test_head_start.py -rfEs \
      >"$OUT/head_start_gpu.txt" 2>&1
    stamp "exit $?: $(tail -1 "$OUT/head_start_gpu.txt")"
    tritonbench
    LIMIT=120 level2
    python3 bench/gpu/gpu_time_summary.py "$OUT" >"$OUT/summary.md" 2>&1 ;;
  tb)
    tritonbench
    python3 bench/gpu/gpu_time_summary.py "$OUT" >"$OUT/summary.md" 2>&1 ;;
  integrity)  # Paper first: a run cut short still has the profile with more checks.
    redteam paper
    redteam strict ;;
  strict_tb)
    tritonbench
    redteam strict
    python3 bench/gpu/gpu_time_summary.py "$OUT" >"$OUT/summary.md" 2>&1 ;;
  tb_paper)
    tritonbench
    redteam paper
    python3 bench/gpu/gpu_time_summary.py "$OUT" >"$OUT/summary.md" 2>&1 ;;
  paper_us)
    redteam paper
    us_set
    alone 1 gqa
    alone 2
    python3 bench/gpu/gpu_time_summary.py "$OUT" >"$OUT/summary.md" 2>&1 ;;
  paper)
    redteam paper
    sandbox tests/sandbox/test_judge_reach.py ;;
esac
kill "$smi" 2>/dev/null
pack
find "$OUT" -mindepth 1 -type f -not -name summary.md -not -name steps.txt \
  -not -name gpu_time.tgz -delete
