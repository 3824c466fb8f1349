#!/usr/bin/env bash
# Issue 19: the worker's phases were split out of child.py (context, references, runtime_checks,
# trials, measure, trace). The GPU-only paths (memory poisoning, CUDA-event timing, the kernel
# trace) are not exercised on the CPU: this evaluates the hand-written Level-1 kernels and runs
# the whole red team on the H200, so every phase runs on the device.
source "$(dirname "$0")/common.sh"
stamp "eval of the hand-written Level-1 kernels"
timeout 180 "${EVAL[@]}" --tasks-dir "$KB/level1" --kernels-dir "$KK/level1" \
  >"$OUT/eval.jsonl" 2>"$OUT/eval_stderr.txt"
python3 - "$OUT/eval.jsonl" <<'PY' | tee "$OUT/eval_summary.txt"
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    t = (r.get("details") or {}).get("kernel_trace") or {}
    print(f'{r["task"]:32s} {r["kernel"].split("/")[-1]:28s} {r["verdict"]:13s} '
          f'speedup={r["speedup"]} check={r.get("check", "")} own_us={t.get("own_us")} '
          f'poisoned={(r.get("details") or {}).get("poisoned_free_blocks")} {r["reason"][:90]}')
PY
LIMIT=${LIMIT:-330} SLOTS=4 bash bench/gpu/redteam.sh
stamp "done"
tar -czf "$OUT/issue19.tar.gz" -C "$OUT" --exclude issue19.tar.gz .
