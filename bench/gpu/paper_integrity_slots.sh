#!/usr/bin/env bash
# Whether paper's integrity mark depends on the slots per GPU (issue 54's paper defect): the whole
# red team under paper ran at --slots 4 (bench/gpu/redteam.sh) and lost the mark on every task,
# while the softmax cases at the default slots kept it. Here the red team's softmax cases (the
# GPU-only ones included) in one batch under paper, --no-cache, at --slots 4, 1 and 2 on the GPU
# (the CPU keeps the mark at 1 and 4); per run, each result's trial marks and reference cache
# outcome, and the worker's debug lines on integrity. One archive: paper_integrity_slots.tgz.
source "$(dirname "$0")/common.sh"
install_sandbox_filter
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
work=/tmp/adx-paper-slots
rm -rf "$work" && mkdir -p "$work/tasks" "$work/kernels/softmax" "$work/out"
cp examples/tasks/softmax.py "$work/tasks/"
grep -l '^task: *softmax$' tests/redteam/cases/*.py | xargs -I{} cp {} "$work/kernels/softmax/"
summary() {  # results.jsonl -> one line per result
  python3 - "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    d = r.get("details") or {}
    marks = [t.get("integrity", False) for t in d.get("trials", [])]
    print(r["kernel"].split("/")[-1], r["verdict"], d.get("reference_cache"), r.get("worker"),
          "marks", marks[5:], "|", r["reason"][-70:])
PY
}
for run in cuda:4 cuda:1 cuda:2; do
  device=${run%:*} slots=${run#*:}
  stamp "paper, softmax cases, $device, --slots $slots"
  echo "== $device --slots $slots" >>"$OUT/paper_integrity_slots.txt"
  timeout 150 "$BIN" eval --python python3 --json --no-cache --device "$device" --profile paper \
    --timed-runs 5 --warmup 1 --timeout 120 --slots "$slots" --log-level debug \
    --tasks-dir "$work/tasks" --kernels-dir "$work/kernels" \
    >"$work/out/${device}_$slots.jsonl" 2>"$work/out/${device}_$slots.log"
  stamp "exit $?"
  summary "$work/out/${device}_$slots.jsonl" | tee -a "$OUT/paper_integrity_slots.txt" | head -3
  grep -i "integrity" "$work/out/${device}_$slots.log" | head -20 >"$work/out/${device}_${slots}_integrity_lines.txt"
  tar czf "$OUT/paper_integrity_slots.tgz" -C "$work/out" .
done
