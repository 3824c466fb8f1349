#!/usr/bin/env bash
# compute-sanitizer on the GPU (eval --sanitize): kernels with a known answer
# (bench/gpu/sanitizer_cases/: a Triton ReLU reading a block past its input's end, a CUDA row sum
# racing in its last warp, and clean Triton and CUDA kernels beside them) under strict, in the
# sandbox, one slot. Writes sanitizer_cases.jsonl and sanitizer_cases.txt: each kernel's verdict,
# each tool's outcome, error count and wall time, and the findings. Expected: reads_past_end
# memcheck errors, warp_race racecheck errors, the three others clean.
source "$(dirname "$0")/common.sh"
install_sandbox_filter
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/gpu.txt" 2>&1
{ command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer; } >"$OUT/tool.txt" 2>&1
export PATH=$PATH:$(dirname "$(head -1 "$OUT/tool.txt")")
# The cases beside the examples' clean ReLU kernels (Triton and CUDA), under one folder each.
CASES=/tmp/adx-sanitizer-cases
rm -rf "$CASES" && mkdir -p "$CASES/tasks" "$CASES/kernels/relu"
cp examples/tasks/relu.py bench/gpu/sanitizer_cases/tasks/*.py "$CASES/tasks/"
cp -r bench/gpu/sanitizer_cases/kernels/* "$CASES/kernels/"
cp examples/kernels/relu/ok.py "$CASES/kernels/relu/ok.py"
cp examples/cpp/relu/cuda_inline.py "$CASES/kernels/relu/cuda_ok.py"
# KEEP: a pattern of the kernels to keep (relu/ok.py|relu/reads_past_end.py), for a short call;
# TOOLS: the tools (default memcheck,racecheck).
if [ -n "${KEEP:-}" ]; then
  (cd "$CASES/kernels" && for f in */*.py; do [[ $f =~ ^(${KEEP})$ ]] || rm "$f"; done)
  for d in "$CASES"/kernels/*/; do  # A task left without kernels goes too.
    [ -n "$(ls "$d")" ] || rm -r "$d" "$CASES/tasks/$(basename "$d").py"
  done
fi
stamp "sanitizer cases: $(cd "$CASES/kernels" && echo */*.py)"
timeout "${LIMIT:-420}" "${EVAL[@]}" --sanitize --slots 1 --sanitizer-timeout "${TOOL_LIMIT:-150}" \
  --sanitizer-tools "${TOOLS:-memcheck,racecheck}" \
  --tasks-dir "$CASES/tasks" --kernels-dir "$CASES/kernels" \
  >"$OUT/sanitizer_cases.jsonl" 2>"$OUT/sanitizer_cases.log"
stamp "eval exited with $?"
python3 - "$OUT/sanitizer_cases.jsonl" <<'PY' | tee "$OUT/sanitizer_cases.txt"
import json, os, sys
for line in open(sys.argv[1]):
    if not line.startswith("{"):
        continue
    r = json.loads(line)
    runs = " ".join(f"{c['tool']}={c['outcome']}({c['errors']}, {c['wall_s']:.1f}s)"
                    for c in r.get("sanitizer", [])) or "-"
    print(f"{r['task']:10} {os.path.basename(r['kernel']):20} {r['verdict']:10} {runs}")
    for f in r.get("findings", []):
        if f.startswith("compute-sanitizer"):
            print(f"    {f[:300]}")
PY
