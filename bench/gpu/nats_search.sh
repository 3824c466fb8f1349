#!/usr/bin/env bash
# Issue 8 on a two-GPU machine: a search whose evaluations reach the orchestrator only through
# NATS. A loopback nats-server, `adaexplore worker --nats` on GPU 0 (host-a) and on GPU 1
# (host-b), and `adaexplore run --nats --confirm-best` with no GPU of its own over TASKS tasks of
# .device/l2suite (default 3), STEPS steps each (default 3), the scripted LLM of
# bench/gpu/showcase_llm.py. Prints the run's summary and, for each confirmed new best, the two
# hosts that measured it. The run gets RUN_LIMIT seconds (default 480), then SIGTERM.
source "$(dirname "$0")/common.sh"
TASKS=${TASKS:-3}
STEPS=${STEPS:-3}
url=nats://127.0.0.1:14222
.device/nats/nats-server -js -sd /tmp/adx-js-run -a 127.0.0.1 -p 14222 >"$OUT/nats-server.log" 2>&1 &
server=$!
sleep 1
for i in 0 1; do
  name=host-$([ $i = 0 ] && echo a || echo b)
  "$BIN" worker --nats $url --gpus $i --name $name --python python3 >"$OUT/worker_$name.log" 2>&1 &
done
llmurl=$(mktemp)
python3 bench/gpu/showcase_llm.py .device/l2suite/kernels "$llmurl" &
llm=$!
for _ in $(seq 100); do [ -s "$llmurl" ] && break; sleep 0.1; done
mkdir -p /tmp/run-tasks
cp $(ls .device/l2suite/*.py | head -"$TASKS") /tmp/run-tasks/
stamp "run through NATS: $TASKS tasks, $STEPS steps, --confirm-best"
CUDA_VISIBLE_DEVICES= OPENAI_BASE_URL=$(cat "$llmurl") OPENAI_API_KEY=scripted \
  timeout "${RUN_LIMIT:-480}" "$BIN" run --nats $url --confirm-best --task /tmp/run-tasks --llm openai:scripted \
  --steps "$STEPS" --db /tmp/nats-run.sqlite --out /tmp/run-out >"$OUT/run.txt" 2>"$OUT/run.log"
stamp "run exited with $?"
kill $llm
pkill -INT -f "adaexplore worker"; sleep 3
kill $server
python3 - <<'PY' | tee "$OUT/confirmed.txt"
import json, sqlite3
c = sqlite3.connect("/tmp/nats-run.sqlite")
for task, node, verdict, speedup, result in c.execute(
        "SELECT task, node, verdict, speedup, result FROM nodes ORDER BY task, node"):
    facts = json.loads(result).get("facts", {})
    r = json.loads(result)
    m = facts.get("measurements")
    extra = ""
    if m:
        extra = " confirmed: " + ", ".join(f"{x['worker']} {x['speedup']:.3g}x" for x in m)
    print(f"{task[:40]:40} node {node} {verdict:14} {speedup or 0:.3g}x on {r.get('worker')}{extra}")
PY
tail -6 "$OUT/run.txt"
