#!/usr/bin/env bash
# Whether a candidate can reach the judge, on the GPU, before and after a change to the worker
# (issue 53: every thread confined, 6ee4e0b -> baac258; the judge process, 06e0c82 -> its commit).
# "before" is the worker of commit BEFORE, carried in .device/before
# (made by this script's caller: tools/device_bundle.sh, then `git archive BEFORE python`), run by
# the same binary; "after" is this tree.
#   PART=cases (default): the hand-written Level-2 kernels (IDS2) under strict with the sandbox,
#     before and after (verdicts, speedups, and what the sandbox and the dispatcher check cost a
#     candidate: phases sandbox.*, dispatch.*); then tests/sandbox on the GPU after (issue 34's
#     hostile kernels and issue 53's: the CUDA driver's threads, a CUDA host callback,
#     torch.library on the CUDA key, the user's terminal) and issue 53's cases before.
#   PART=redteam: the GPU red team under strict, then paper (LIMIT seconds each).
#   PART=final: after a fix, in one call: the Level-2 figures, issue 53's cases (after), and the
#     red team under strict.
#   PART=paper: then, in a second call: every tests/sandbox case (after) and the red team under
#     paper.
# Everything goes into one archive as it is made; summary.md and steps.txt beside it.
source "$(dirname "$0")/common.sh"
install_sandbox_filter
{ uname -r; id; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } \
  >>"$OUT/setup.txt" 2>&1
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -lms 500 \
  >"$OUT/smi.csv" 2>&1 &
smi=$!
pack() { tar czf /tmp/judge_reach.tgz -C "$OUT" --exclude judge_reach.tgz . && mv /tmp/judge_reach.tgz "$OUT/"; }
# The before binary is this one, from a folder whose python/ is the old worker.
mkdir -p .device/before/bin && cp "$BIN" .device/before/bin/adaexplore
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
redteam() {  # PROFILES
  for profile in "$@"; do
    PROFILE=$profile LIMIT=${LIMIT:-270} bash bench/gpu/redteam.sh >/dev/null 2>&1
    mv "$OUT/redteam.txt" "$OUT/redteam_$profile.txt"
    mv "$OUT/redteam_results.jsonl" "$OUT/redteam_${profile}_results.jsonl" 2>/dev/null
    stamp "red team $profile: $(tail -1 "$OUT/redteam_$profile.txt")"
    pack
  done
}
level2() {  # before and after
  IDS2=${IDS2:-1,12,14,53,56,57,59,68,76,81,86,90,95}
  for side in after before; do
    bin=$BIN; [ "$side" = before ] && bin=.device/before/bin/adaexplore
    stamp "eval level 2 ($side)"
    timeout "${LIMIT:-150}" "$bin" eval --python python3 --no-cache --json --level 2 \
      --problem "$IDS2" --suite-dir .device/kernelbench --kernels-dir "$KK/level2" \
      >"$OUT/eval_l2_$side.jsonl" 2>"$OUT/eval_l2_$side.log"
    stamp "exit $? ($(wc -l <"$OUT/eval_l2_$side.jsonl") results)"
    pack
  done
}
hostile() {  # SIDE TESTS: tests/sandbox's cases on the GPU with the before or after worker
  local bin=$BIN; [ "$1" = before ] && bin=.device/before/bin/adaexplore
  stamp "$2 on the GPU ($1)"
  timeout 240 python3 -m pytest -q -p no:cacheprovider "$2" --adaexplore-binary "$bin" \
    --sandbox-device cuda --sandbox-python python3 -rfEs >"$OUT/sandbox_$1.txt" 2>&1
  stamp "exit $?: $(tail -1 "$OUT/sandbox_$1.txt")"
  pack
}
case "${PART:-cases}" in
  redteam) redteam strict paper ;;
  paper)  # The rest after a fix: the red team under paper, and every tests/sandbox case.
    hostile after tests/sandbox
    LIMIT=250 redteam paper ;;
  final)  # One call after a fix: the figures again, issue 53's cases, the red team under strict.
    level2
    hostile after tests/sandbox/test_judge_reach.py
    python3 bench/gpu/judge_reach_summary.py "$OUT" >"$OUT/summary.md" 2>&1
    LIMIT=250 redteam strict ;;
  *)
    level2
    hostile after tests/sandbox
    hostile before tests/sandbox/test_judge_reach.py
    python3 bench/gpu/judge_reach_summary.py "$OUT" >"$OUT/summary.md" 2>&1 ;;
esac
kill "$smi" 2>/dev/null
pack
find "$OUT" -mindepth 1 -type f -not -name summary.md -not -name steps.txt \
  -not -name judge_reach.tgz -delete
