#!/usr/bin/env bash
# Whether the whole red team under paper loses the integrity mark on the GPU at --slots 4 and at
# --slots 1 (issue 54's paper defect; the softmax cases alone keep it at 1, 2 and 4:
# bench/gpu/paper_integrity_slots.sh). bench/gpu/redteam.sh under paper at each slot count; per
# run, how many results carry an integrity trial (a trial marked `integrity`), by task. One
# archive: paper_integrity_batch.tgz.
source "$(dirname "$0")/common.sh"
install_sandbox_filter
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
work=/tmp/adx-paper-batch
rm -rf "$work" && mkdir -p "$work"
for slots in ${SLOT_COUNTS:-4 1}; do
  PROFILE=paper SLOTS=$slots LIMIT=${RT_LIMIT:-220} bash bench/gpu/redteam.sh >/dev/null 2>&1
  mv "$OUT/redteam.txt" "$work/redteam_slots$slots.txt"
  # One copy: pytest-current is a link to the run's own folder.
  cat /tmp/pytest-of-*/pytest-current/redteam0/group*/results.jsonl >"$work/results_slots$slots.jsonl"
  rm -f "$OUT/redteam_results.jsonl"
  python3 - "$work/results_slots$slots.jsonl" <<'PY' | tee "$work/marks_slots$slots.txt"
import collections, json, sys
marked, total = collections.Counter(), collections.Counter()
for line in open(sys.argv[1]):
    r = json.loads(line)
    trials = (r.get("details") or {}).get("trials", [])
    total[r["task"]] += 1
    marked[r["task"]] += any(t.get("integrity") for t in trials)
print(f"{sys.argv[1]}: {sum(marked.values())} of {sum(total.values())} results carry an integrity "
      "trial")
print(" ".join(f"{t}:{marked[t]}/{total[t]}" for t in sorted(total)))
PY
  stamp "slots $slots: $(tail -1 "$work/redteam_slots$slots.txt"); $(head -1 "$work/marks_slots$slots.txt" | cut -d: -f2-)"
  tar czf "$OUT/paper_integrity_batch.tgz" -C "$work" .
done
