#!/usr/bin/env bash
# Issue 24 on the GPU: the README's quick start (the KernelBench walk-through) (`eval --level 2 --problem IDS
# --kernels-dir ...`) over the hand-written Level-2 kernels (ok.py and each wrong_*.py), once
# under --profile kernelbench (KernelBench main's check: allclose 1e-4 on 5 seeded trials, 3
# warm-ups and 100 runs on one input set with L2 flushed, the mean) and once under --profile
# strict, each writing KernelBench's eval_results.json (--kernelbench-results) and its progress
# as JSON lines (--json). bench/gpu/quickstart_profiles_summary.py compares them.
source "$(dirname "$0")/common.sh"
IDS=${IDS:-1,12,14,53,56,57,59,68,76,81,86,90,95}
for profile in kernelbench strict; do
  stamp "eval --profile $profile --level 2 --problem $IDS"
  timeout "${LIMIT:-250}" "$BIN" eval --python python3 --no-cache --json --level 2 \
    --problem "$IDS" --suite-dir .device/kernelbench --kernels-dir "$KK/level2" \
    --profile "$profile" --kernelbench-results "$OUT/eval_results_$profile.json" \
    >"$OUT/eval_$profile.jsonl" 2>"$OUT/progress_$profile.log"
  stamp "exit $? ($(wc -l <"$OUT/eval_$profile.jsonl") results)"
done
python3 bench/gpu/quickstart_profiles_summary.py "$OUT" >"$OUT/summary.md" 2>&1
cat "$OUT/summary.md"
tar czf "$OUT/issue24.tgz" -C "$OUT" --exclude issue24.tgz .
