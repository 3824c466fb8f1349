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
python3 - "$sel" "$PER_KIND" <<'PY' | tee "$OUT/issue20_selection.txt"
import glob, json, os, shutil, sys
sel, per_kind = sys.argv[1], int(sys.argv[2])
for path in sorted(glob.glob(".device/showcase/kernels/*.json")):
    task = os.path.splitext(os.path.basename(path))[0]
    shutil.copy(f".device/showcase/{task}.py", f"{sel}/tasks/")
    os.makedirs(f"{sel}/kernels/{task}")
    large = [n for n in json.load(open(path)) if n["created_by"] == "large_step" and n["code"]]
    chosen = ([n for n in large if n["release_correct"]][:per_kind] +
              [n for n in large if n["release_compiled"] and not n["release_correct"]][:per_kind])
    for n in chosen:
        kind = "c" if n["release_correct"] else "w"
        open(f"{sel}/kernels/{task}/s{n['step']:03d}_{kind}.py", "w").write(n["code"])
    print(task, " ".join(f"s{n['step']}{'c' if n['release_correct'] else 'w'}" for n in chosen))
PY
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
