#!/usr/bin/env bash
# Issue 8 on a two-GPU machine (kind nvidia-h200-x2), after tools/device_bundle.sh:
#   1. throughput on one host: the same candidates (.device/scale) with --gpus 0, then 0,1
#   2. the same candidates through NATS only: a loopback nats-server, two `adaexplore worker
#      --nats` processes (host-a on GPU 0, host-b on GPU 1), the orchestrator with no GPU
#   3. a search (`adaexplore run`, 3 steps on 4 tasks, the scripted LLM) through NATS only
# Each part gets a fresh Triton cache, no result cache. Summary in $OUT/scaleout.txt.
source "$(dirname "$0")/common.sh"
SCALE=.device/scale
n=$(find $SCALE/kernels -name '*.py' | wc -l)
stamp "scale-out: $n candidates over $(ls $SCALE/tasks | wc -l) tasks"
timed() {  # label, then the command; appends the seconds to scaleout.txt
  local label=$1; shift
  local t0=$(date +%s.%N)
  "$@"
  local t1=$(date +%s.%N)
  echo "$label $(awk "BEGIN {printf \"%.1f\", $t1 - $t0}")" >>"$OUT/scaleout.txt"
}
for gpus in 0 0,1; do  # Files named without the comma: $OUT keeps plain names only.
  TRITON_CACHE_DIR=$(mktemp -d) timed "local_gpus_$gpus" "${EVAL[@]}" --gpus $gpus \
    --tasks-dir $SCALE/tasks --kernels-dir $SCALE/kernels >"$OUT/local_${gpus/,/}.jsonl" \
    2>"$OUT/local_${gpus/,/}.log"
done
port=14222
url=nats://127.0.0.1:$port
.device/nats/nats-server -js -sd /tmp/adx-js -a 127.0.0.1 -p $port >"$OUT/nats-server.log" 2>&1 &
server=$!
sleep 1
for i in 0 1; do
  name=host-$([ $i = 0 ] && echo a || echo b)
  TRITON_CACHE_DIR=$(mktemp -d) "$BIN" worker --nats $url --gpus $i --name $name \
    --python python3 >"$OUT/worker_$name.log" 2>&1 &
done
for _ in $(seq 600); do
  [ "$(grep -l 'serving queue' "$OUT"/worker_host-*.log 2>/dev/null | wc -l)" = 2 ] && break
  sleep 0.1
done
stamp "workers: $(grep -h 'serving queue' "$OUT"/worker_host-*.log | tr '\n' ' ')"
CUDA_VISIBLE_DEVICES= timed "nats_2_hosts" "$BIN" eval --nats $url --no-cache --json \
  --tasks-dir $SCALE/tasks --kernels-dir $SCALE/kernels >"$OUT/nats.jsonl" 2>"$OUT/nats.log"
llmurl=$(mktemp)
python3 bench/gpu/showcase_llm.py .device/l2suite/kernels "$llmurl" &
llm=$!
for _ in $(seq 100); do [ -s "$llmurl" ] && break; sleep 0.1; done
mkdir -p /tmp/run-tasks
cp $(ls .device/l2suite/*.py | head -4) /tmp/run-tasks/
CUDA_VISIBLE_DEVICES= OPENAI_BASE_URL=$(cat "$llmurl") OPENAI_API_KEY=scripted \
  timed "nats_run" "$BIN" run --nats $url --task /tmp/run-tasks --llm openai:scripted \
  --steps 3 --db "$OUT/run.sqlite" --out /tmp/run-out --no-cache >"$OUT/run.txt" 2>"$OUT/run.log"
kill $llm
pkill -INT -f "adaexplore worker" ; sleep 3
kill $server
python3 - "$OUT" <<'PY' | tee -a "$OUT/scaleout.txt"
import collections, json, sys
out = sys.argv[1]
def load(name):
    return [json.loads(l) for l in open(f"{out}/{name}") if l.strip()]
for name in ["local_0.jsonl", "local_01.jsonl", "nats.jsonl"]:
    rows = load(name)
    verdicts = collections.Counter(r["verdict"] for r in rows)
    workers = collections.Counter(r.get("worker", "") for r in rows)
    print(name, len(rows), dict(verdicts), dict(workers))
a = {r["kernel"].split("/")[-2] + "/" + r["kernel"].split("/")[-1]: r["verdict"] for r in load("local_0.jsonl")}
b = {r["kernel"].split("/")[-2] + "/" + r["kernel"].split("/")[-1]: r["verdict"] for r in load("nats.jsonl")}
print("verdicts equal local 1 GPU vs NATS:", a == b, "differ:", {k: (a[k], b.get(k)) for k in a if a[k] != b.get(k)})
PY
tail -3 "$OUT/run.txt"
cat "$OUT/scaleout.txt"
