#!/usr/bin/env bash
# Issue 3: the null-kernel self-test over every KernelBench task of Levels 1-3 (.device/kb_all).
# Each task is evaluated with bench/gpu/null_probe.py, a candidate that raises when called, so an
# evaluation runs the reference and the self-test (zeros, a constant, the input, the input's
# mean) and stops. Three settings: strict fp32 (the default), strict bf16 (tolerance 1e-2) and
# the paper profile (the reference release: task inputs only, allclose at 5e-2).
# PROFILES and LEVELS pick a subset (default: all three settings, levels 1-3); ONLY names a file
# of level/task lines to check just those (e.g. the tasks an earlier run could not reach).
# bench/gpu/selftest_summary.py makes the table; later files win for a task given twice.
source "$(dirname "$0")/common.sh"
PROFILES=${PROFILES:-"strict-fp32 strict-bf16 paper-fp32"}
SLOTS=${SLOTS:-6}
LEVELS=${LEVELS:-"level1 level2 level3"}
for level in level1 level2 level3; do
  mkdir -p "/tmp/probe/$level" "/tmp/probe-tasks/$level"
  for t in .device/kb_all/$level/*.py; do
    if [[ -n "${ONLY:-}" ]] && ! grep -qx "$level/$(basename "$t" .py)" "$ONLY"; then continue; fi
    cp "$t" "/tmp/probe-tasks/$level/"
    cp bench/gpu/null_probe.py "/tmp/probe/$level/$(basename "$t")"
  done
done
for p in $PROFILES; do
  for level in $LEVELS; do
    stamp "self-test $p $level"
    timeout "${LEVEL_LIMIT:-300}" "$BIN" eval --python python3 --no-cache --json --slots "$SLOTS" \
      --profile "${p%-*}" --precision "${p#*-}" --trials "${TRIALS:-5}" \
      --tasks-dir "/tmp/probe-tasks/$level" --kernels-dir "/tmp/probe/$level" \
      >"$OUT/selftest_${p}_$level.jsonl" 2>>"$OUT/selftest_errors.txt"
  done
done
stamp "self-test done"
python3 bench/gpu/selftest_summary.py "$OUT"/selftest_*.jsonl --markdown "$OUT/degenerate.md"
