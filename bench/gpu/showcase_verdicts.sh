#!/usr/bin/env bash
# Issue 20 on the GPU: large-step kernels of the reference run's ten showcase trees (per tree up to
# PER_KIND the release scored correct and up to PER_KIND it compiled but scored wrong), evaluated
# by `adaexplore eval` under each profile in PROFILES (default: strict paper), SLOTS at once.
# Writes per profile the JSON lines and a table of kernel, release verdict, verdict, check, reason.
source "$(dirname "$0")/common.sh"
PER_KIND=${PER_KIND:-2}
PROFILES=${PROFILES:-strict paper}
SLOTS=${SLOTS:-4}
sel=/tmp/adx-issue20
rm -rf "$sel" && mkdir -p "$sel/tasks" "$sel/kernels"
python3 bench/gpu/showcase_select.py "$sel" "$PER_KIND" | tee "$OUT/issue20_selection.txt"
for profile in $PROFILES; do
  stamp "showcase under $profile"
  timeout "${LIMIT:-400}" "$BIN" eval --python python3 --no-cache --json --profile "$profile" \
    --slots "$SLOTS" --tasks-dir "$sel/tasks" --kernels-dir "$sel/kernels" \
    >"$OUT/issue20_$profile.jsonl" 2>"$OUT/issue20_$profile.log"
  stamp "$profile exited with $?"
  python3 - "$OUT/issue20_$profile.jsonl" <<'PY' | tee "$OUT/issue20_$profile.txt"
import collections, json, os, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
counts = collections.Counter()
for r in rows:
    name = os.path.basename(r["kernel"])
    release = "correct" if name.endswith("_c.py") else "wrong"
    counts[(release, r["verdict"])] += 1
    print(f"{r['task'][:40]:40} {name:12} release={release:7} {r['verdict']:13} "
          f"{r.get('check', ''):20} {r['reason'][:300]}")
print("counts:", dict(sorted(counts.items())))
PY
done
