#!/usr/bin/env bash
# Issue 21 on the GPU, in two parts (each well inside one 10-minute call):
#   PART=throughput  bench/eval_throughput over .device/scale (the hand-written Level-2 kernels and
#                    the first large-step kernels of each showcase tree), SLOTS at once, the pool
#                    first, then FRESH candidates each in a fresh process: rate, overhead beyond
#                    GPU busy time, GPU busy share, phase medians, reference-cache hit rate.
#   PART=slots       the showcase selection of bench/gpu/showcase_verdicts.sh (PER_KIND per tree
#                    and kind) evaluated at each of SLOTS_LIST: verdicts compared kernel by
#                    kernel, and each correct kernel's candidate median against --slots 1 (the
#                    small ones are where other slots' work would show).
source "$(dirname "$0")/common.sh"
PART=${PART:-throughput}
if [ "$PART" = throughput ]; then
  stamp "eval_throughput: $(ls .device/scale/kernels/*/*.py | wc -l) candidates, ${SLOTS:-4} slots"
  timeout "${LIMIT:-420}" .device/bench-bin/eval_throughput --python python3 \
    --tasks-dir .device/scale/tasks --kernels-dir .device/scale/kernels --slots "${SLOTS:-4}" \
    --fresh-limit "${FRESH:-12}" --json-out "$OUT/issue21_throughput.json" \
    >"$OUT/issue21_throughput.txt" 2>"$OUT/issue21_throughput.log"
  stamp "eval_throughput exited with $?"
  cat "$OUT/issue21_throughput.txt"
  exit 0
fi

PER_KIND=${PER_KIND:-2}
SLOTS_LIST=${SLOTS_LIST:-1 4 8}
sel=/tmp/adx-issue21
rm -rf "$sel" && mkdir -p "$sel/tasks" "$sel/kernels"
python3 bench/gpu/showcase_select.py "$sel" "$PER_KIND" | tee "$OUT/issue21_selection.txt"
for slots in $SLOTS_LIST; do
  stamp "showcase at --slots $slots"
  timeout "${LIMIT:-200}" "$BIN" eval --python python3 --no-cache --json --slots "$slots" \
    --tasks-dir "$sel/tasks" --kernels-dir "$sel/kernels" \
    >"$OUT/issue21_slots$slots.jsonl" 2>"$OUT/issue21_slots$slots.log"
  stamp "--slots $slots exited with $?"
done
python3 - "$OUT" $SLOTS_LIST <<'PY' | tee "$OUT/issue21_slots.txt"
import json, os, sys
out, counts = sys.argv[1], sys.argv[2:]
runs = {}
for s in counts:
    rows = [json.loads(l) for l in open(f"{out}/issue21_slots{s}.jsonl") if l.strip()]
    runs[s] = {os.path.relpath(r["kernel"]): r for r in rows}
base = counts[0]
kernels = sorted(set.intersection(*(set(r) for r in runs.values())))
same = [k for k in kernels if len({runs[s][k]["verdict"] for s in counts}) == 1]
print(f"{len(kernels)} kernels evaluated at every slot count; identical verdicts: {len(same)}")
hits = {s: sum(1 for r in runs[s].values() if r["details"].get("reference_cache") == "hit")
        for s in counts}
print("reference cache hits per slot count:", hits)
for k in kernels:
    if k not in same:
        print("DIFFERS", k, {s: (runs[s][k]["verdict"], runs[s][k]["reason"][:120]) for s in counts})
def median_ms(r):
    t = (r.get("timing") or {}).get("candidate") or {}
    return t.get("median_ms")
print(f"{'kernel':60} " + " ".join(f"{'slots ' + s:>12}" for s in counts) + "  ratio vs " + base)
for k in kernels:
    medians = [median_ms(runs[s][k]) for s in counts]
    if medians[0] is None or any(m is None for m in medians):
        continue
    ratios = " ".join(f"{m / medians[0]:.3f}" for m in medians[1:])
    print(f"{k[-60:]:60} " + " ".join(f"{m:12.4f}" for m in medians) + "  " + ratios)
PY
