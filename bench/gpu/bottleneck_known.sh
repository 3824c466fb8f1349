#!/usr/bin/env bash
# Issue 39 on the GPU, PART=known|search|redteam (default known,search):
# - known: the bottleneck rule's known-answer kernels (bench/gpu/bottleneck_known/README.md, and
#   KernelBench Level 1's 19_ReLU and 1_Square_matrix_multiplication_), `eval --json` under strict
#   (the bf16 GEMM at --precision bf16), each result's class, line and speed-of-light fraction
#   beside a hand calculation (the task's bytes from its shapes over a copy bandwidth measured here
#   apart from the worker, over the kernel time), and what the profile costs (the trace phase).
# - search: one showcase task searched with bench/gpu/showcase_llm.py (instant replies) for STEPS
#   steps; every tuner and reviser prompt whose parent kernel is correct must carry its profile.
# - redteam: the GPU red team under strict (the worker's trace changed).
source "$(dirname "$0")/common.sh"
PART=${PART:-known,search}
K39=bench/gpu/bottleneck_known
install_sandbox_filter
if [[ $PART == *known* ]]; then
  sel=/tmp/adx-issue39-known
  rm -rf "$sel" && mkdir -p "$sel/fp32/tasks" "$sel/fp32/kernels" "$sel/bf16/tasks" "$sel/bf16/kernels"
  for p in 19_ReLU 1_Square_matrix_multiplication_; do
    cp "$KB/level1/$p.py" "$sel/fp32/tasks/" && mkdir -p "$sel/fp32/kernels/$p" &&
      cp "$KK/level1/$p/ok.py" "$sel/fp32/kernels/$p/"
  done
  for p in tiny_scale one_block_relu pytorch_gemm_relu; do
    cp "$K39/tasks/$p.py" "$sel/fp32/tasks/" && cp -r "$K39/kernels/$p" "$sel/fp32/kernels/"
  done
  cp "$K39/tasks/bf16_matmul.py" "$sel/bf16/tasks/" && cp -r "$K39/kernels/bf16_matmul" "$sel/bf16/kernels/"
  python3 - >"$OUT/copy_bw.txt" <<'PY'
import torch
x = torch.empty(1 << 28, device="cuda").uniform_()
y = torch.empty_like(x)
best = float("inf")
for _ in range(10):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); y.copy_(x); e.record(); e.synchronize()
    best = min(best, s.elapsed_time(e))
print(2 * x.numel() * 4 / (best / 1e3))
PY
  stamp "copy bandwidth measured apart: $(cat "$OUT/copy_bw.txt") B/s"
  stamp "known: eval fp32 under strict"
  timeout 240 "${EVAL[@]}" --profile strict --slots 2 --tasks-dir "$sel/fp32/tasks" \
    --kernels-dir "$sel/fp32/kernels" >"$OUT/known.jsonl" 2>"$OUT/known.log"
  stamp "eval exited with $?; known: eval bf16 under strict"
  timeout 150 "${EVAL[@]}" --profile strict --precision bf16 --tasks-dir "$sel/bf16/tasks" \
    --kernels-dir "$sel/bf16/kernels" >>"$OUT/known.jsonl" 2>>"$OUT/known.log"
  stamp "eval exited with $?"
  python3 - "$OUT/known.jsonl" "$(cat "$OUT/copy_bw.txt")" <<'PY' | tee "$OUT/known.txt"
import json, sys
bw = float(sys.argv[2])
# Bytes any kernel must move, from the tasks' shapes: inputs read once, outputs written once.
hand = {"19_ReLU": 4096 * 393216 * 4 * 2, "1_Square_matrix_multiplication_": 3 * 4096**2 * 4,
        "tiny_scale": 4096 * 4 * 2, "one_block_relu": (1 << 24) * 4 * 2,
        "pytorch_gemm_relu": 3 * 4096**2 * 4, "bf16_matmul": 3 * 8192**2 * 2}
expected = {"19_ReLU": "memory_bound", "1_Square_matrix_multiplication_": "compute_bound",
            "tiny_scale": "launch_bound", "one_block_relu": "latency_bound",
            "pytorch_gemm_relu": "pytorch_dominated", "bf16_matmul": "compute_bound"}
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    r = json.loads(line)
    task = r["task"].removesuffix(".py")
    p = r.get("kernel_profile") or {}
    kus = (r.get("timing") or {}).get("candidate_kernel_us")
    call = ((r.get("timing") or {}).get("candidate") or {}).get("median_ms")
    sol = r.get("sol_fraction")
    by_hand = hand[task] / bw / (kus / 1e6) if kus else None
    gap = abs(sol / by_hand - 1) if sol and by_hand else None
    phases = {k: v for k, v in (r.get("details", {}).get("phases") or {}).items()
              if k in ("check", "timing", "trace")}
    print(f"{task:34} {r['verdict']:10} speedup={r.get('speedup')} call_ms={call} "
          f"kernel_us={kus} kernel-scope speedup={r.get('speedup_kernel')}\n"
          f"    expected {expected[task]}, got {p.get('bottleneck')}: "
          f"{'OK' if p.get('bottleneck') == expected[task] else 'MISS'}\n"
          f"    {p.get('text') or p.get('unavailable')}\n"
          f"    sol={sol} by hand={by_hand} gap={gap}\n    phases (s): {phases}\n"
          f"    reason: {r.get('reason', '')[:160]}")
PY
fi
if [[ $PART == *search* ]]; then
  TASK=${TASK:-40_Matmul_Scaling_ResidualAdd}
  SHOWCASE=${SHOWCASE:-.device/showcase}
  one=/tmp/adx-issue39-task
  rm -rf "$one" && mkdir -p "$one" && cp "$SHOWCASE/$TASK.py" "$one/"
  python3 bench/gpu/showcase_llm.py "$SHOWCASE/kernels" "$OUT/llm-url" &
  llm=$!
  for _ in $(seq 100); do [ -s "$OUT/llm-url" ] && break; sleep 0.1; done
  stamp "search: $TASK, ${STEPS:-14} steps"
  OPENAI_BASE_URL=$(cat "$OUT/llm-url") OPENAI_API_KEY=scripted TRITON_CACHE_DIR=$(mktemp -d) \
    timeout -s INT "${SEARCH_LIMIT:-240}" "$BIN" run --task "$one" --llm openai:scripted \
    --steps "${STEPS:-14}" --in-flight 2 --slots 2 --python python3 --no-cache \
    --db "$OUT/search.sqlite" --out "$OUT/search-best" --json >"$OUT/search-summary.json" \
    2>"$OUT/search.log"
  stamp "search exited with $?"
  kill $llm 2>/dev/null
  python3 - "$OUT/search.sqlite" <<'PY' | tee "$OUT/search.txt"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
nodes = {n: (v, json.loads(r)) for n, v, r in db.execute("SELECT node, verdict, result FROM nodes")}
parent = dict(db.execute("SELECT node, parent FROM nodes"))
calls = db.execute("SELECT node, role, messages FROM llm_calls ORDER BY node, seq").fetchall()
print("nodes", len(nodes), "correct", sum(1 for v, _ in nodes.values() if v == "correct"))
for n, (v, r) in sorted(nodes.items()):
    p = r.get("kernel_profile") or {}
    print(n, parent.get(n), v, r.get("speedup"), "sol", r.get("sol_fraction"), "|",
          p.get("text") or p.get("unavailable"))
want = have = 0
for node, role, messages in calls:
    if role not in ("tuner", "reviser"):
        continue
    text = "".join(m.get("content", "") for m in json.loads(messages))
    up = parent.get(node)
    if up in nodes and nodes[up][0] == "correct":
        want += 1
        lines = [l for l in text.splitlines() if l.startswith("Profile:")]
        have += bool(lines)
        print(f"{role} for node {node} (parent {up}, correct): {lines[:1] or 'NO PROFILE LINE'}")
print(f"tuner/reviser prompts after a correct kernel: {want}; with its profile: {have}")
PY
fi
if [[ $PART == *redteam* ]]; then
  PROFILE=strict LIMIT=${LIMIT:-420} bash bench/gpu/redteam.sh
fi
stamp "issue 39 done"
tar -czf "$OUT/issue39.tar.gz" -C "$OUT" --exclude issue39.tar.gz --exclude '*.sqlite' . 2>/dev/null
