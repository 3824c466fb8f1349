#!/usr/bin/env bash
# Where a candidate that calls torch.compile spends its check in the sandbox on the GPU: the red
# team's c15 (torch.compile by a computed name) alone under strict, one slot, with the process
# tree (state, wait channel, threads, memory) every 3 s. On the H100 it once held its check for
# the whole 300 s limit (the CPU and earlier GPU runs: 10-30 s), pausing the jobs beside it.
# Files: c15.json (eval's result), c15.log (eval's log), ps.txt.
source "$(dirname "$0")/common.sh"
install_sandbox_filter
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
(
  for _ in $(seq 1 "$(( ${LIMIT:-120} / 3 ))"); do
    echo "== $(date +%T)"
    ps -eo pid,ppid,stat,etimes,rss,nlwp,wchan:24,args --sort=pid | grep -E "python|adaexplore" |
      grep -v grep | cut -c1-220
    sleep 3
  done
) >"$OUT/ps.txt" 2>&1 &
watcher=$!
stamp "c15 alone under strict"
timeout "${LIMIT:-120}" "${EVAL[@]}" --profile strict --slots 1 --timeout "$(( ${LIMIT:-120} - 20 ))" \
  --task tests/redteam/tasks/gelu.py --kernel tests/redteam/cases/c15_compile_getattr.py \
  --log-level debug >"$OUT/c15.json" 2>"$OUT/c15.log"
stamp "eval exited with $?"
kill "$watcher" 2>/dev/null
python3 - "$OUT/c15.json" <<'PY' | tee -a "$OUT/steps.txt"
import json, sys
for line in open(sys.argv[1]):
    if line.strip():
        r = json.loads(line)
        d = r.get("details") or {}
        print(r.get("verdict"), (r.get("reason") or "")[:200], "wall", d.get("wall_s"),
              "phases", d.get("phases"))
PY
