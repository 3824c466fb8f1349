#!/usr/bin/env bash
# Why the paper profile's integrity trials lose their `integrity` mark on the GPU (issue 54's
# paper defect): one paper evaluation of the red team's c11_call_count_replay on softmax, on the
# GPU and on the CPU of the same machine, with the result cache kept, so that the facts the C++
# side stored (and the worker's raw trial facts, from its debug log) can be read side by side.
source "$(dirname "$0")/common.sh"
install_sandbox_filter
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
work=/tmp/adx-paper-facts
rm -rf "$work" && mkdir -p "$work"
for device in cuda cpu; do
  stamp "paper eval of c11_call_count_replay on $device"
  timeout 240 "$BIN" eval --python python3 --json --device "$device" --profile paper \
    --timed-runs 5 --warmup 1 --timeout 200 --cache "$work/cache_$device.sqlite" \
    --log-level debug --task examples/tasks/softmax.py \
    --kernel tests/redteam/cases/c11_call_count_replay.py \
    >"$OUT/paper_facts_$device.json" 2>"$work/log_$device.txt"
  stamp "exit $?"
  python3 - "$work/cache_$device.sqlite" >"$OUT/paper_facts_${device}_stored.json" <<'PY'
import json, sqlite3, sys
for verdict, result in sqlite3.connect(sys.argv[1]).execute(
        "SELECT verdict, result FROM eval_results"):
    print(json.dumps({"verdict": verdict, "result": json.loads(result)}))
PY
  grep -i "integrity\|trials" "$work/log_$device.txt" | head -50 >"$OUT/paper_facts_${device}_log.txt"
done
tar czf "$OUT/paper_facts.tgz" -C "$work" .
