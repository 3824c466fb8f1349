#!/usr/bin/env bash
# Issue 23 on the GPU: FlashInfer-Trace definitions and TritonBench-G operators as tasks.
#   PART=rmsnorm  every rmsnorm and fused_add_rmsnorm definition over all its workloads with
#                 bench/flashinfer_solutions' Triton kernels, then TritonBench-G problems
#                 TB_PROBLEMS (default 1-TB_LAST, TB_LAST 20; "none" skips them) each with its own
#                 code as the candidate
#   ONLY='a b'    with PART=rmsnorm: those definitions only
#   PART=gemm     every gemm definition over all its workloads with bench/flashinfer_solutions/
#                 gemm.py
# Each writes eval's JSON lines and FlashInfer Trace lines to $OUT, and a summary per definition
# (bench/gpu/task_kinds_summary.py). FlashInfer's own rmsnorm kernels are timed as the expert
# baseline (FlashInfer 0.6.6 from .device/flashinfer_kernels, compiled here first).
source "$(dirname "$0")/common.sh"
PART=${PART:-rmsnorm}
SLOTS=${SLOTS:-4}
LIMIT=${LIMIT:-480}
SETTINGS=(--slots "$SLOTS" --trials "${TRIALS:-3}" --timed-runs "${RUNS:-30}" --warmup 5
  --timeout 120)
stamp "installing flashinfer-bench and pydantic from .device/wheels/flashinfer"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
  .device/wheels/flashinfer/*.whl 2>&1 | tail -2
python3 -c "import flashinfer_bench.data, flashinfer_bench.bench.utils; print('flashinfer-bench', flashinfer_bench.__version__)" \
  2>&1 | tee -a "$OUT/steps.txt"
# FlashInfer's own kernels, the expert baseline: FlashInfer 0.6.6 compiles them with the image's
# nvcc at first use into $FLASHINFER_WORKSPACE_BASE (warmed here, so no evaluation waits for it).
stamp "installing FlashInfer 0.6.6 and apache-tvm-ffi from .device/flashinfer_kernels"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
  .device/flashinfer_kernels/*.whl 2>&1 | tail -2
export FLASHINFER_WORKSPACE_BASE=/tmp/adx-flashinfer FLASHINFER_CUDA_ARCH_LIST=${FLASHINFER_CUDA_ARCH_LIST:-9.0a}
mkdir -p "$FLASHINFER_WORKSPACE_BASE"
if [ -z "${CUDA_HOME:-}" ]; then
  if command -v nvcc >/dev/null; then CUDA_HOME=$(dirname "$(dirname "$(command -v nvcc)")"); else CUDA_HOME=/usr/local/cuda; fi
  export CUDA_HOME
fi
# FlashInfer links with -lcudart -lcuda: where the toolkit lacks the unversioned names, link them.
links=$FLASHINFER_WORKSPACE_BASE/links
mkdir -p "$links"
[ -e "$CUDA_HOME/lib64/libcudart.so" ] || ln -sf "$(ls "$CUDA_HOME"/lib64/libcudart.so.1* 2>/dev/null | head -1)" "$links/libcudart.so"
[ -e "$CUDA_HOME/lib64/stubs/libcuda.so" ] || ln -sf "$(ldconfig -p | awk '/libcuda\.so\.1 /{print $NF; exit}')" "$links/libcuda.so"
export FLASHINFER_EXTRA_LDFLAGS="-L$links"
stamp "warming FlashInfer's norm kernels (CUDA_HOME=$CUDA_HOME)"
timeout 400 python3 bench/gpu/flashinfer_warm.py 2>&1 | tail -20 | tee "$OUT/flashinfer_import.txt" \
  || echo "flashinfer's norm kernels are not usable: no expert baseline" | tee -a "$OUT/steps.txt"
work=/tmp/adx-issue23
rm -rf "$work" && mkdir -p "$work"
# A dataset layout: tasks in <root>/definitions/<op>/, workloads in <root>/workloads/<op>/.
defs=.device/flashinfer/definitions
if [ "$PART" = rmsnorm ]; then
  tasks=$defs/rmsnorm
  if [ -n "${ONLY:-}" ]; then  # Some definitions only: ONLY='rmsnorm_h4096 fused_add_rmsnorm_h4096'.
    mkdir -p "$work/defs/definitions/rmsnorm" && ln -s "$(realpath .device/flashinfer/workloads)" "$work/defs/workloads"
    for name in $ONLY; do cp "$tasks/$name.json" "$work/defs/definitions/rmsnorm/"; done
    tasks=$work/defs/definitions/rmsnorm
  fi
  for d in "$tasks"/*.json; do
    name=$(basename "$d" .json)
    mkdir -p "$work/kernels/$name"
    case $name in
      fused_add_*) cp bench/flashinfer_solutions/fused_add_rmsnorm.py "$work/kernels/$name/" ;;
      *) cp bench/flashinfer_solutions/rmsnorm.py "$work/kernels/$name/" ;;
    esac
  done
else
  tasks=$defs/gemm
  for d in "$tasks"/*.json; do
    name=$(basename "$d" .json)
    mkdir -p "$work/kernels/$name"
    cp bench/flashinfer_solutions/gemm.py "$work/kernels/$name/"
  done
fi
stamp "FlashInfer-Trace $PART: $(ls "$tasks" | wc -l) definitions, $(cat .device/flashinfer/workloads/"$PART"/*.jsonl | wc -l) workloads"
timeout "$LIMIT" "${EVAL[@]}" "${SETTINGS[@]}" --tasks-dir "$tasks" --kernels-dir "$work/kernels" \
  --traces "$OUT/issue23_${PART}_traces.jsonl" \
  >"$OUT/issue23_$PART.jsonl" 2>"$OUT/issue23_$PART.log"
stamp "FlashInfer-Trace $PART exited with $?"
TB_LAST=${TB_LAST:-20}
TB_PROBLEMS=${TB_PROBLEMS:-1-$TB_LAST}  # Or a list: TB_PROBLEMS=4 (apply_penalty) alone.
if [ "$PART" = rmsnorm ] && [ "$TB_PROBLEMS" != none ]; then
  mkdir -p "$work/tb"
  python3 - "$work/tb" "$TB_PROBLEMS" <<'PY'
import json, os, shutil, sys
wanted = set()
for part in sys.argv[2].split(","):
    first, _, last = part.partition("-")
    wanted.update(range(int(first), int(last or first) + 1))
index = json.load(open(".device/tritonbench-g/TritonBench_G_v1.index.json"))
for entry in index:
    if entry["adaexplore_problem_id"] in wanted:
        name = entry["file"][:-3]
        os.makedirs(f"{sys.argv[1]}/{name}")
        shutil.copy(f".device/tritonbench-g/tasks/{entry['file']}", f"{sys.argv[1]}/{name}/own_code.py")
PY
  stamp "TritonBench-G problems $TB_PROBLEMS, their own code as candidates"
  timeout "${TB_LIMIT:-240}" "${EVAL[@]}" "${SETTINGS[@]}" --suite tritonbench-g --suite-dir .device/tritonbench-g \
    --problem "$TB_PROBLEMS" --kernels-dir "$work/tb" \
    >"$OUT/issue23_tritonbench.jsonl" 2>"$OUT/issue23_tritonbench.log"
  stamp "TritonBench-G exited with $?"
fi
python3 bench/gpu/task_kinds_summary.py "$OUT" "$PART" | tee "$OUT/issue23_${PART}_summary.txt"
