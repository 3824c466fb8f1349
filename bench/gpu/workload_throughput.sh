#!/usr/bin/env bash
# Issue 36's benchmark: evaluation throughput on the users' workload (.device/workload, made by
# bench/gpu/workload_select.py: 49 real LLM-written kernels with heavy tasks, autotuned kernels,
# compile errors, a microsecond-scale task and two hangs), with the light set (.device/scale) as a
# second row. For each RUNS entry "profile:slots[:set]" (set: workload, the default, or scale),
# `adaexplore eval` over the whole set; nvidia-smi samples the GPU throughout, and
# bench/gpu/workload_summary.py reports per run: candidates judged and per minute, the GPU's own
# utilisation in the run's window, verdicts, per-phase medians and the waits (waited_s).
#   RUNS="strict:1 strict:4 reference:1 reference:4 strict:4:scale" (the default), LIMIT per run.
# Carry .device/bin, .device/lib, .device/workload, .device/scale and .device/wheels (the
# sandbox's filter, as bench/gpu/sandbox_cost.sh installs it).
source "$(dirname "$0")/common.sh"
install_sandbox_filter
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,nounits -lms 250 \
  >"$OUT/smi.csv" 2>&1 &
smi=$!
for run in ${RUNS:-strict:1 strict:4 reference:1 reference:4 strict:4:scale}; do
  IFS=: read -r profile slots set <<<"$run"
  set=${set:-workload}
  name="${set}_${profile}_s${slots}"
  stamp "run $name begins $(date +%s.%N)"
  timeout "${LIMIT:-240}" "${EVAL[@]}" --profile "$profile" --slots "$slots" --timeout "${TIMEOUT:-60}" \
    --tasks-dir ".device/$set/tasks" --kernels-dir ".device/$set/kernels" \
    >"$OUT/$name.jsonl" 2>"$OUT/$name.log"
  stamp "run $name ends $(date +%s.%N) exit $? ($(wc -l <"$OUT/$name.jsonl") results)"
done
kill "$smi" 2>/dev/null
python3 bench/gpu/workload_summary.py "$OUT" | tee "$OUT/summary.md"
tar czf /tmp/issue36_workload.tgz -C "$OUT" . &&
  find "$OUT" -mindepth 1 -type f -not -name summary.md -not -name steps.txt -delete &&
  mv /tmp/issue36_workload.tgz "$OUT/"
