"""Issue 36's hang figures from bench/gpu/hung_candidate.sh's output folder: per candidate and lock
patience, the verdict, what it waited (waited_s: the task's phases, the GPU lock and a slot, not
counted against its limit), its wall time and median; the wall time of each evaluation from the
step log; nvidia-smi's utilisation while each ran."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from issue34_summary import load, median_ms  # The same eval --json lines.

HANGS = ("hang_python.py", "hang_gpu.py")


def main(out: Path) -> None:
    runs = {p: load(out / f"eval_p{p}.jsonl") for p in (0, 2)}
    print("# Issue 36 on the H200: a hung candidate beside 14 others, --slots 4, strict\n")
    print("| kernel | verdict (patience 0) | verdict (patience 2) | waited s (0) | waited s (2) "
          "| median ms (0) | median ms (2) |")
    print("|---|---|---|---|---|---|---|")
    for name in sorted(set(runs[0]) | set(runs[2])):
        cells = []
        for p in (0, 2):
            r = runs[p].get(name, {})
            cells.append(r)
        def waited(r: dict) -> str:
            value = (r.get("details") or {}).get("waited_s")
            return f"{value:.1f}" if isinstance(value, (int, float)) else "-"
        def med(r: dict) -> str:
            value = median_ms(r) if r else None
            return f"{value:.4g}" if isinstance(value, (int, float)) else "-"
        print(f"| {name} | {cells[0].get('verdict', '-')} | {cells[1].get('verdict', '-')} | "
              f"{waited(cells[0])} | {waited(cells[1])} | {med(cells[0])} | {med(cells[1])} |")
    print()
    for p in (0, 2):
        others = [r for n, r in runs[p].items() if not n.endswith(HANGS)]
        waits = [(r.get("details") or {}).get("waited_s") or 0 for r in others]
        if waits:
            print(f"- patience {p}: {len(others)} other candidates, waited_s total "
                  f"{sum(waits):.1f} s, median {statistics.median(waits):.1f} s, max "
                  f"{max(waits):.1f} s")
        for n, r in runs[p].items():
            if n.endswith(HANGS):
                notes = (r.get("details") or {}).get("notes") or []
                print(f"  - {n}: {r.get('verdict')} after {(r.get('details') or {}).get('wall_s')}"
                      f" s wall; {r.get('reason', '')[:160]}; notes: {notes[-1:] if notes else []}")
    steps = (out / "steps.txt").read_text() if (out / "steps.txt").exists() else ""
    print("\nStep log:\n```\n" + steps + "```")
    smi = out / "smi.csv"
    if smi.exists():
        values = []
        for line in smi.read_text().splitlines()[1:]:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) >= 2 and parts[1].endswith("%"):
                values.append(float(parts[1].rstrip(" %")))
        if values:
            print(f"\nnvidia-smi over the whole script: {len(values)} samples, mean utilisation "
                  f"{statistics.mean(values):.1f}%, busy (>0%) {100 * sum(v > 0 for v in values) / len(values):.0f}% of samples")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
