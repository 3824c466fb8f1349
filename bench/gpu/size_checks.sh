#!/usr/bin/env bash
# Other sizes on the GPU (--size-checks): the repository's hand-written KernelBench kernels under
# strict (none should be marked) and up to PER_TREE kernels the reference release scored correct
# in each of its ten showcase trees, SLOTS at once. Writes the JSON
# lines per set and size_checks.txt: each kernel's verdict and its checks at the other size sets,
# the marked ones with why, and what the checks cost beside the candidate's own check phase.
source "$(dirname "$0")/common.sh"
PER_TREE=${PER_TREE:-4}
SLOTS=${SLOTS:-4}
install_sandbox_filter
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/gpu.txt" 2>&1
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -lms 500 \
  >"$OUT/smi.csv" 2>&1 &
smi=$!
sel=/tmp/adx-size-checks
rm -rf "$sel" && mkdir -p "$sel/tasks" "$sel/kernels"
python3 - "$sel" "$PER_TREE" <<'PY' | tee "$OUT/showcase_selection.txt"
import glob, json, os, shutil, sys
sel, per_tree = sys.argv[1], int(sys.argv[2])
for path in sorted(glob.glob(".device/showcase/kernels/*.json")):
    task = os.path.splitext(os.path.basename(path))[0]
    shutil.copy(f".device/showcase/{task}.py", f"{sel}/tasks/")
    os.makedirs(f"{sel}/kernels/{task}")
    correct = [n for n in json.load(open(path)) if n["release_correct"] and n["code"]]
    step = max(1, len(correct) // per_tree)  # Spread over the search, not its first steps.
    chosen = correct[::step][:per_tree]
    for n in chosen:
        open(f"{sel}/kernels/{task}/s{n['step']:03d}.py", "w").write(n["code"])
    print(task, " ".join(f"s{n['step']}" for n in chosen))
PY
run_set() {  # name, then eval's task and kernel arguments
  local name=$1
  shift
  stamp "size checks: $name"
  timeout "${LIMIT:-240}" "${EVAL[@]}" --slots "$SLOTS" "$@" >"$OUT/$name.jsonl" 2>"$OUT/$name.log"
  stamp "$name exited with $?"
}
# SETS: which of own_kernels_l1 (Level 1 at full size: one slot's worth of host memory each),
# own_kernels_l2 and showcase to run, in order. The showcase kernels were scored correct under
# the release's tolerance: SHOWCASE_PROFILE (default paper, with --size-checks) judges them so.
for set in ${SETS:-own_kernels_l2 showcase own_kernels_l1}; do
  case $set in
    own_kernels_l1) run_set own_kernels_l1 --tasks-dir "$KB/level1" --kernels-dir "$KK/level1" ;;
    own_kernels_l2) run_set own_kernels_l2 --tasks-dir "$KB/level2" --kernels-dir "$KK/level2" ;;
    showcase)
      run_set showcase --profile "${SHOWCASE_PROFILE:-paper}" --size-checks \
        --tasks-dir "$sel/tasks" --kernels-dir "$sel/kernels" ;;
  esac
done
python3 bench/gpu/size_checks_summary.py "$OUT"/*.jsonl | tee "$OUT/size_checks.txt"
kill "$smi" 2>/dev/null
