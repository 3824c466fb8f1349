#!/usr/bin/env bash
# Issue 39 on the GPU: the bottleneck estimated from the kernel trace (no hardware profile) on
# Level-1 kernels whose answer is known: ReLU and a matrix-vector product (memory-bound), a square
# matmul (compute-side), GELU and softmax. One `eval --json` under strict, 2 slots; a table of
# verdict, speedup, speed-of-light fraction and the profile's line per kernel.
source "$(dirname "$0")/common.sh"
sel=/tmp/adx-issue39-estimate
rm -rf "$sel" && mkdir -p "$sel/tasks" "$sel/kernels"
for p in ${PROBLEMS:-19_ReLU 4_Matrix_vector_multiplication_ 1_Square_matrix_multiplication_ 88_MinGPTNewGelu 23_Softmax}; do
  cp "$KB/level1/$p.py" "$sel/tasks/" && mkdir -p "$sel/kernels/$p" && cp "$KK/level1/$p/ok.py" "$sel/kernels/$p/"
done
stamp "estimate: eval under strict"
timeout "${LIMIT:-400}" "${EVAL[@]}" --profile strict --slots 2 --tasks-dir "$sel/tasks" \
  --kernels-dir "$sel/kernels" >"$OUT/estimate.jsonl" 2>"$OUT/estimate.log"
stamp "eval exited with $?"
python3 - "$OUT/estimate.jsonl" <<'PY' | tee "$OUT/estimate.txt"
import json, sys
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    r = json.loads(line)
    p = r.get("kernel_profile") or {}
    print(f"{r['task'][:34]:34} {r['verdict']:13} speedup={r.get('speedup')} "
          f"sol={r.get('sol_fraction')} kernel_us={r.get('candidate_kernel_us')} "
          f"cache={r.get('facts', {}).get('reference_cache')}\n    {p.get('bottleneck')}: "
          f"{p.get('text') or p.get('unavailable')}\n    reason: {r.get('reason', '')[:200]}")
PY
