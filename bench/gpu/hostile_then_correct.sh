#!/usr/bin/env bash
# Issue 22 on the GPU: hostile kernels, each followed by a correct one, in one `eval` batch on
# one slot, so each correct kernel runs on the worker the hostile one left behind:
#   illegal.py     a Triton kernel that reads 2**40 elements past the bias (an illegal address:
#                  the CUDA context of that process is lost)
#   killer.py      a correct kernel that SIGKILLs the worker that runs it (found through /proc by
#                  a shell, past the static checks), then itself
#   terminator.py  the same with SIGTERM, which the worker reads with its sender
#   daemon.py      a correct kernel that leaves a daemon outside its process group (double fork
#                  and setsid), which must be gone when its evaluation ends
# Then the same batch at SLOTS, and a correct kernel whose worker is sent SIGTERM from outside
# while it runs (it must still come back `correct`). The correct kernel
# (bench/kernelbench_kernels/level2/76_Gemm_Add_ReLU/ok.py) is evaluated alone first; each later
# copy must be `correct` with a speedup near that one.
source "$(dirname "$0")/common.sh"
SLOTS=${SLOTS:-4}
task=$KB/level2/76_Gemm_Add_ReLU.py
ok=$KK/level2/76_Gemm_Add_ReLU/ok.py
dir=/tmp/adx-issue22
rm -rf "$dir" && mkdir -p "$dir"
python3 - "$ok" "$dir" <<'PY'
import sys
ok, out = open(sys.argv[1]).read(), sys.argv[2]
illegal = ok.replace("bias = tl.load(b_ptr + rn, mask=rn < N, other=0.0)",
                     "bias = tl.load(b_ptr + rn + (1 << 40), mask=rn < N, other=0.0)")
assert illegal != ok
def signalling(sig):
    # $PPID of the shell is the candidate's process; its parent is the worker.
    text = ok.replace("    def forward(self, x):\n", "    def forward(self, x):\n"
                      "        import subprocess\n"
                      "        subprocess.run(['sh', '-c', 'kill -" + sig + " "
                      "$(cut -d\\' \\' -f4 /proc/$PPID/stat); sleep 3'])\n")
    assert text != ok
    return text
killer, terminator = signalling("KILL"), signalling("TERM")
# /dev/shm: the one place outside its job folder a candidate can write under the read-only file
# system (torch and CUDA need it).
daemon = ok + "\n" + open("tests/faults/kernels/daemon_tail.py").read().replace(
    "PID_FILE", "/dev/shm/adx-issue22-daemon.pid")
writer = ok + f"""
import os as _os
try:
    open("{out}/escaped.txt", "w").write("x")
except OSError as _e:
    print("refused:", _e.strerror)
"""
files = [("illegal", illegal), ("killer", killer), ("terminator", terminator),
         ("daemon", daemon), ("writer", writer)]
files += [(f"ok{k}", f"# copy {k}\n" + ok) for k in (1, 2, 3, 4)]
# Slow to import, and says when its import starts (the moment to stop its worker from outside).
files += [("ok5", ok + "\nimport time\nopen('/dev/shm/adx-issue22-importing', 'w').close()\n"
                      "time.sleep(8)\n")]
for name, text in files:
    open(f"{out}/{name}.py", "w").write(text)
PY
batch=(--kernel "$dir/illegal.py" --kernel "$dir/ok1.py" --kernel "$dir/killer.py"
  --kernel "$dir/ok2.py" --kernel "$dir/terminator.py" --kernel "$dir/ok3.py"
  --kernel "$dir/daemon.py" --kernel "$dir/ok4.py" --kernel "$dir/writer.py")
stamp "the correct kernel alone"
timeout 120 "${EVAL[@]}" --slots 1 --task "$task" --kernel "$ok" \
  >"$OUT/issue22_alone.jsonl" 2>"$OUT/issue22_alone.log"
stamp "alone exited with $?"
for slots in 1 "$SLOTS"; do
  stamp "hostile batch at --slots $slots"
  timeout 150 "${EVAL[@]}" --slots "$slots" --task "$task" "${batch[@]}" \
    >"$OUT/issue22_slots$slots.jsonl" 2>"$OUT/issue22_slots$slots.log"
  stamp "--slots $slots exited with $?"
  if [ -f "$dir/escaped.txt" ]; then stamp "writer.py ESCAPED its job folder"; rm -f "$dir/escaped.txt"
  else stamp "writer.py could not write outside its job folder"; fi
  if [ -f /dev/shm/adx-issue22-daemon.pid ]; then
    pid=$(cat /dev/shm/adx-issue22-daemon.pid)
    if kill -0 "$pid" 2>/dev/null; then stamp "daemon $pid ALIVE after the batch"; kill -9 "$pid"
    else stamp "daemon $pid gone after the batch"; fi
    rm -f /dev/shm/adx-issue22-daemon.pid
  else
    stamp "daemon never wrote its pid"
  fi
  nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader \
    >"$OUT/issue22_gpu_procs$slots.txt" 2>&1
  stamp "GPU processes left: $(grep -c . "$OUT/issue22_gpu_procs$slots.txt")"
done
stamp "a correct kernel whose worker is sent SIGTERM from outside while it runs"
"${EVAL[@]}" --slots 1 --task "$task" --kernel "$dir/ok5.py" \
  >"$OUT/issue22_outside.jsonl" 2>"$OUT/issue22_outside.log" &
eval_pid=$!
rm -f /dev/shm/adx-issue22-importing
for _ in $(seq 600); do [ -f /dev/shm/adx-issue22-importing ] && break; sleep 0.1; done
zygote=$(pgrep -P "$eval_pid" -f adaexplore_worker | head -1)
stamp "eval $eval_pid, worker ${zygote:-none}: kill -TERM"
[ -n "$zygote" ] && kill -TERM "$zygote"
wait "$eval_pid"
stamp "outside kill run exited with $?"
python3 - "$OUT" "$SLOTS" <<'PY' | tee "$OUT/issue22.txt"
import json, os, sys
out, slots = sys.argv[1], sys.argv[2]
def rows(name):
    path = f"{out}/{name}.jsonl"
    return [json.loads(l) for l in open(path) if l.strip()] if os.path.exists(path) else []
def speedup(r):
    return r.get("speedup")
alone = rows("issue22_alone")
base = speedup(alone[0]) if alone else None
print(f"correct kernel alone: {alone[0]['verdict'] if alone else 'missing'} speedup {base}")
for name in ["slots1", f"slots{slots}", "outside"]:
    print(f"--- {name}")
    for r in rows(f"issue22_{name}"):
        sp = speedup(r)
        rel = f" ({sp / base:.3f} of alone)" if sp and base else ""
        print(f"{os.path.basename(r['kernel']):12} {r['verdict']:13} speedup {sp}{rel}  "
              f"{r['reason'][:200]}")
    if rows(f"issue22_{name}"):
        print("protections:", rows(f"issue22_{name}")[0]["details"].get("containment"))
PY
