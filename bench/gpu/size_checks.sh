#!/usr/bin/env bash
# Other sizes on the GPU (strict's --size-checks): the repository's hand-written KernelBench
# kernels (none should be marked) and up to PER_TREE kernels the reference release scored correct
# in each of its ten showcase trees, evaluated under strict at SLOTS at once. Writes the JSON
# lines per set and size_checks.txt: each kernel's verdict and its checks at the other size sets,
# the marked ones with why, and what the checks cost beside the candidate's own check phase.
source "$(dirname "$0")/common.sh"
PER_TREE=${PER_TREE:-4}
SLOTS=${SLOTS:-4}
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
run_set own_kernels_l1 --tasks-dir "$KB/level1" --kernels-dir "$KK/level1"
run_set own_kernels_l2 --tasks-dir "$KB/level2" --kernels-dir "$KK/level2"
run_set showcase --tasks-dir "$sel/tasks" --kernels-dir "$sel/kernels"
python3 bench/gpu/size_checks_summary.py "$OUT"/own_kernels_l1.jsonl "$OUT"/own_kernels_l2.jsonl \
  "$OUT"/showcase.jsonl | tee "$OUT/size_checks.txt"
