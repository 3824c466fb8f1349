#!/usr/bin/env bash
# Issue 39 on the H200: the profile of TritonBench-G candidates, whose timed call is a test that
# makes its own inputs (its setup kernels are marked, timing/setup_marks.py). Operators PROBLEMS (default
# eight) with their own code, and add_value with its kernel launched twice, under strict at 1 slot: each result's
# scope, kernel-scope speedup, the trace's busy and operator time, setup ranges (opened, traced),
# setup kernels per kind, bottleneck and profile line (bench/gpu/bottleneck_tritonbench_summary.py).
# Carry .device/bin, .device/lib, .device/wheels and .device/tritonbench-g.
source "$(dirname "$0")/common.sh"
install_sandbox_filter
nvidia-smi --query-gpu=timestamp,utilization.gpu,clocks.sm,temperature.gpu --format=csv -lms 500 \
  >"$OUT/smi.csv" 2>&1 &
smi=$!
work=/tmp/adx-issue39-tb
rm -rf "$work" && mkdir -p "$work/own" "$work/twice/add_value"
problems=${PROBLEMS:-3,12,15,20,24,40,52,56}
python3 - "$work/own" "$problems" <<'PY'
import json, os, shutil, sys
wanted = {int(p) for p in sys.argv[2].split(",")}
for entry in json.load(open(".device/tritonbench-g/TritonBench_G_v1.index.json")):
    if entry["adaexplore_problem_id"] in wanted:
        os.makedirs(f"{sys.argv[1]}/{entry['file'][:-3]}")
        shutil.copy(f".device/tritonbench-g/tasks/{entry['file']}",
                    f"{sys.argv[1]}/{entry['file'][:-3]}/own_code.py")
PY
cp bench/gpu/bottleneck_tritonbench/add_value_twice.py "$work/twice/add_value/"
SETTINGS=(--profile strict --slots 1 --timeout 120 --suite tritonbench-g
  --suite-dir .device/tritonbench-g)
stamp "own code: problems $problems"
timeout "${LIMIT:-150}" "${EVAL[@]}" "${SETTINGS[@]}" --problem "$problems" \
  --kernels-dir "$work/own" >"$OUT/own.jsonl" 2>"$OUT/own.log"
stamp "own code exited with $?"
timeout 60 "${EVAL[@]}" "${SETTINGS[@]}" --problem 3 --kernels-dir "$work/twice" \
  >"$OUT/twice.jsonl" 2>"$OUT/twice.log"
stamp "add_value twice exited with $?"
kill "$smi" 2>/dev/null
python3 bench/gpu/bottleneck_tritonbench_summary.py "$OUT/own.jsonl" "$OUT/twice.jsonl" |
  tee "$OUT/summary.md"
tar czf /tmp/issue39_tb.tgz -C "$OUT" . && mv /tmp/issue39_tb.tgz "$OUT/"
