"""Figures of a search run from its run database, for the GPU benchmarks:

    python3 run_figures.py RUN_DB [SMI_CSV]

Per task: steps, verdict counts, best speedup. For the run: wall time (first node's start is the
run's creation; the end is the last node), the mean number of evaluations in flight (the
children's wall times summed over the run's wall time; at most the workers' slots), and, given a
`nvidia-smi --query-gpu=timestamp,utilization.gpu --format=csv,noheader -lms N` log started just
before the run and stopped just after it, the mean GPU utilisation over the run (the share of
each sample period in which a kernel was running)."""

from __future__ import annotations

import collections
import json
import sqlite3
import sys


def main() -> None:
    db = sqlite3.connect(sys.argv[1])
    run_id, created, status = db.execute(
        "SELECT id, created_at, status FROM runs ORDER BY id DESC LIMIT 1").fetchone()
    rows = db.execute("SELECT task, verdict, speedup, result, created_at FROM nodes "
                      "WHERE run_id = ? AND node > 0", (run_id,)).fetchall()
    tasks: dict[str, dict] = collections.defaultdict(
        lambda: {"steps": 0, "verdicts": collections.Counter(), "best": None})
    busy = 0.0
    end = created
    for task, verdict, speedup, result, at in rows:
        t = tasks[task]
        t["steps"] += 1
        t["verdicts"][verdict] += 1
        if verdict == "correct" and speedup is not None:
            t["best"] = max(t["best"] or 0.0, speedup)
        busy += json.loads(result).get("wall_s", 0.0) or 0.0
        end = max(end, at)
    wall = max(1, end - created)
    print(f"run {run_id} ({status}): {len(rows)} steps over {len(tasks)} tasks in {wall} s")
    totals = collections.Counter()
    print(f"{'task':58} {'steps':>5} {'best':>8}  verdicts")
    for name in sorted(tasks):
        t = tasks[name]
        totals.update(t["verdicts"])
        best = f"{t['best']:.2f}x" if t["best"] else "-"
        counts = ", ".join(f"{v} {n}" for v, n in sorted(t["verdicts"].items()))
        print(f"{name:58} {t['steps']:>5} {best:>8}  {counts}")
    print("verdicts:", ", ".join(f"{v} {n}" for v, n in sorted(totals.items())))
    print(f"evaluations in flight: {busy / wall:.2f} on average ({busy:.0f} s of evaluation "
          f"in {wall} s)")
    if len(sys.argv) > 2:
        samples = []
        for line in open(sys.argv[2]):
            parts = [p.strip() for p in line.split(",")]
            if len(parts) >= 2 and parts[1].endswith("%"):
                samples.append(float(parts[1].rstrip("%").strip()))
        if samples:
            print(f"GPU utilisation (nvidia-smi, {len(samples)} samples): "
                  f"mean {sum(samples) / len(samples):.1f}%, "
                  f"samples >0%: {100 * sum(s > 0 for s in samples) / len(samples):.1f}%")


if __name__ == "__main__":
    main()
