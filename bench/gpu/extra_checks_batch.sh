#!/usr/bin/env bash
# The extra checks on correct kernels on the GPU, in calls of under ten minutes (PART):
#   PART=sanitizer: which of the sandbox's layers lets compute-sanitizer's target start CUDA
#               (sanitizer_in_sandbox.py), where torch.compile spends its check in the sandbox
#               (torch_compile_in_sandbox.sh), then the known-answer cases (sanitizer_cases.sh).
#               SKIP_DIAG=1: without the layers' diagnostic.
#   PART=redteam: the strict red team in full, alone (it needs more than 300 s at 4 slots).
#   PART=tools: compute-sanitizer's known-answer cases (sanitizer_cases.sh), then the showcase
#               trees' kernels the release scored correct, under paper with --size-checks
#               (size_checks.sh SETS=showcase): the marked count.
#   PART=cost:  what the other sizes cost a batch: the repository's hand-written Level-2 kernels
#               under strict at 4 slots, on one result cache: with --size-checks cold (the tasks'
#               sizes unknown: a job per set), again with --refresh (the sizes known from the
#               cache: every candidate's own job checks the sets), and with --no-size-checks
#               (eval's wall time, the GPU's own utilisation from nvidia-smi), and each check's
#               own time (size_checks_summary.py).
# Each step's files go to /tmp/adx-batch/<step>/, packed into $OUT/<PART>.tgz after every step:
# a run cut off still returns what it measured.
source "$(dirname "$0")/common.sh"
PART=${PART:-tools}
W=/tmp/adx-batch
BATCH_OUT=$OUT
mkdir -p "$W"
pack() { tar czf "$BATCH_OUT/$PART.tgz" -C "$W" . 2>/dev/null; }
step() {  # name, then the command: run with OUT=$W/name
  local name=$1
  shift
  mkdir -p "$W/$name"
  echo "[$(date +%T)] $name" >>"$W/steps.txt"
  OUT=$W/$name "$@" >"$W/$name/console.txt" 2>&1
  echo "[$(date +%T)] $name exited with $?" >>"$W/steps.txt"
  pack
}
own_l2() {  # name, then eval's extra arguments: the hand-written Level-2 kernels, strict, 4 slots
  local name=$1
  shift
  local dir=$W/$name
  nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader -lms 250 \
    >"$dir/smi.csv" 2>&1 &
  local smi=$!
  local start=$(date +%s.%N)
  timeout "${L2_LIMIT:-120}" "$BIN" eval --python python3 --json --cache "$W/cost_cache.sqlite" \
    --slots 4 "$@" --tasks-dir "$KB/level2" \
    --kernels-dir "$KK/level2" >"$dir/own_kernels_l2.jsonl" 2>"$dir/eval.log"
  local rc=$?
  echo "eval exited with $rc after $(awk "BEGIN {print $(date +%s.%N) - $start}") s" >"$dir/wall.txt"
  kill "$smi"
  python3 bench/gpu/size_checks_summary.py "$dir/own_kernels_l2.jsonl" >"$dir/size_checks.txt"
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$W/gpu.txt" 2>&1
git log -1 --format=%H >"$W/tree.txt" 2>/dev/null
redteam() {
  step redteam env PROFILE=strict SLOTS=4 LIMIT="${REDTEAM_LIMIT:-290}" bash -c \
    'source bench/gpu/common.sh; install_sandbox_filter; export LD_LIBRARY_PATH=$PWD/.device/lib
     bash bench/gpu/redteam.sh'
}
case $PART in
  sanitizer)
    [ -n "${SKIP_DIAG:-}" ] || step sanitizer_in_sandbox bash -c 'source bench/gpu/common.sh; install_sandbox_filter
      export LD_LIBRARY_PATH=$PWD/.device/lib
      tool=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
      timeout 200 python3 bench/gpu/sanitizer_in_sandbox.py "$tool" | tee "$OUT/diag.txt"'
    step torch_compile env LIMIT="${COMPILE_LIMIT:-120}" bash bench/gpu/torch_compile_in_sandbox.sh
    step sanitizer env LIMIT="${SANITIZER_LIMIT:-300}" TOOL_LIMIT=120 \
      bash bench/gpu/sanitizer_cases.sh
    ;;
  redteam)
    redteam
    ;;
  tools)
    step sanitizer env LIMIT="${SANITIZER_LIMIT:-220}" TOOL_LIMIT=90 \
      bash bench/gpu/sanitizer_cases.sh
    step showcase env SETS=showcase PER_TREE="${PER_TREE:-3}" LIMIT="${SHOWCASE_LIMIT:-240}" \
      bash bench/gpu/size_checks.sh
    ;;
  cost)
    install_sandbox_filter
    export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    for run in l2_sets_in_own_jobs:--size-checks l2_sets_in_candidates_job:--size-checks,--refresh \
      l2_without:--no-size-checks,--refresh; do
      mkdir -p "$W/${run%%:*}"
      echo "[$(date +%T)] ${run%%:*}" >>"$W/steps.txt"
      IFS=, read -ra extra <<<"${run#*:}"
      own_l2 "${run%%:*}" "${extra[@]}"
      pack
    done
    ;;
esac
pack
cat "$W/steps.txt"
