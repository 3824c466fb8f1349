#!/usr/bin/env bash
# Issue 34 on the GPU: the candidate sandbox.
#   PART=sandbox (default): the hand-written KernelBench kernels (21 correct ones, 16 wrong ones:
#     Level 2 problems IDS2, Level 1 problems IDS1) evaluated under --profile strict with the
#     sandbox (the default) and again with --no-sandbox, to compare verdicts and medians and read
#     what entering the sandbox costs a candidate (phases sandbox.enter/confine); then issue 34's
#     hostile kernels (tests/sandbox) on the GPU. nvidia-smi samples the GPU throughout.
#   PART=redteam: the GPU red team (bench/gpu/redteam.sh) under strict, with the sandbox.
# The image may lack libseccomp's Python binding (pyseccomp) and pytest: they come as wheels from
# .device/wheels (tools/device_bundle.sh), and libseccomp.so.2 from .device/lib if the image
# has none.
source "$(dirname "$0")/common.sh"
install_sandbox_filter .device/wheels/*.whl
python3 -c "import pyseccomp, sys; print('pyseccomp', pyseccomp.get_api(), sys.version)" \
  >>"$OUT/setup.txt" 2>&1
{ uname -r; id; cat /proc/sys/user/max_user_namespaces; ls /sys/fs/cgroup | head -5; } \
  >>"$OUT/setup.txt" 2>&1
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -lms 500 \
  >"$OUT/smi.csv" 2>&1 &
smi=$!
if [ "${PART:-sandbox}" = redteam ]; then
  # First, whether a kernel whose verdict differed between the modes (one element of 8.4 M past
  # the tolerance) differs again: four copies in each mode, each job with its own seed.
  task=$KB/level2/95_Matmul_Add_Swish_Tanh_GELU_Hardtanh.py
  mkdir -p /tmp/adx-95 && for k in 1 2 3 4; do
    { echo "# copy $k"; cat "$KK/level2/95_Matmul_Add_Swish_Tanh_GELU_Hardtanh/ok.py"; } \
      >"/tmp/adx-95/ok$k.py"; done
  for mode in sandbox no-sandbox; do
    flag=(); [ "$mode" = no-sandbox ] && flag=(--no-sandbox)
    timeout 120 "${EVAL[@]}" --task "$task" --kernel /tmp/adx-95/ok1.py --kernel /tmp/adx-95/ok2.py \
      --kernel /tmp/adx-95/ok3.py --kernel /tmp/adx-95/ok4.py "${flag[@]}" \
      >"$OUT/p95_$mode.jsonl" 2>/dev/null
    stamp "95 ok.py x4 ($mode): $(grep -o '"verdict":"[a-z_]*"' "$OUT/p95_$mode.jsonl" | sort | uniq -c | tr '\n' ' ')"
  done
  PROFILE=strict LIMIT=${LIMIT:-400} bash bench/gpu/redteam.sh
else
  IDS2=${IDS2:-1,12,14,53,56,57,59,68,76,81,86,90,95}
  IDS1=${IDS1:-19,21,23,24,26,36,40,47}
  for mode in sandbox no-sandbox; do
    flag=(); [ "$mode" = no-sandbox ] && flag=(--no-sandbox)
    for level in ${LEVELS:-2 1}; do
      ids=$IDS2; [ "$level" = 1 ] && ids=$IDS1
      stamp "eval level $level ($mode)"
      timeout "${LIMIT:-150}" "$BIN" eval --python python3 --no-cache --json --level "$level" \
        --problem "$ids" --suite-dir .device/kernelbench --kernels-dir "$KK/level$level" \
        "${flag[@]}" >"$OUT/eval_l${level}_$mode.jsonl" 2>"$OUT/eval_l${level}_$mode.log"
      stamp "exit $? ($(wc -l <"$OUT/eval_l${level}_$mode.jsonl") results)"
    done
  done
  stamp "hostile kernels on the GPU (tests/sandbox)"
  timeout 200 python3 -m pytest -q -p no:cacheprovider tests/sandbox --adaexplore-binary "$BIN" \
    --sandbox-device cuda --sandbox-python python3 -rfE >"$OUT/hostile.txt" 2>&1
  stamp "hostile exit $?"
  tail -5 "$OUT/hostile.txt"
  python3 bench/gpu/sandbox_summary.py "$OUT" >"$OUT/summary.md" 2>&1
  cat "$OUT/summary.md"
fi
kill "$smi" 2>/dev/null
# At most 8 files come back: everything in one archive, beside the summary and the step log.
tar czf /tmp/issue34.tgz -C "$OUT" . &&
  find "$OUT" -mindepth 1 -type f -not -name summary.md -not -name steps.txt -delete &&
  mv /tmp/issue34.tgz "$OUT/"
