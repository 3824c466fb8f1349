"""The figures of bench/gpu/workload_throughput.sh's runs, from its output folder: per run (set,
profile, slots) the candidates judged, their rate, the GPU's utilisation as nvidia-smi read it
in the run's window (not our own phase sums), the verdicts, each phase's median and the time
the candidates waited (waited_s: the task's phases, the GPU lock and a slot)."""

from __future__ import annotations

import json
import re
import statistics
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path


def windows(steps: str) -> dict[str, tuple[float, float]]:
    begins = dict(re.findall(r"run (\S+) begins ([\d.]+)", steps))
    ends = dict(re.findall(r"run (\S+) ends ([\d.]+)", steps))
    return {n: (float(begins[n]), float(ends[n])) for n in begins if n in ends}


def smi_samples(path: Path) -> list[tuple[float, float]]:
    samples = []
    for line in path.read_text().splitlines()[1:] if path.exists() else []:
        parts = [p.strip() for p in line.split(",")]
        try:
            when = datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
            samples.append((when, float(parts[1])))
        except (ValueError, IndexError):
            continue
    return samples


def main(out: Path) -> None:
    steps = (out / "steps.txt").read_text() if (out / "steps.txt").exists() else ""
    smi = smi_samples(out / "smi.csv")
    rows = []
    print("# Evaluation throughput on the users' workload (issue 36)\n")
    print("| run | judged | wall s | per min | GPU util (mean) | GPU busy samples | correct | "
          "waited s (median, max) | verdicts |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, (begin, end) in windows(steps).items():
        results = [json.loads(line) for line in (out / f"{name}.jsonl").read_text().splitlines()
                   if line.startswith("{")] if (out / f"{name}.jsonl").exists() else []
        wall = end - begin
        util = [u for t, u in smi if begin <= t <= end]
        waits = [(r.get("details") or {}).get("waited_s") or 0 for r in results]
        # waited_s holds the task's phases (not the candidate's time) and the waits for the GPU
        # lock and a slot; the phases say how much was the task's.
        task_phases = [sum(v for k, v in ((r.get("details") or {}).get("phases") or {}).items()
                           if k in ("load_task", "reference") and isinstance(v, (int, float)))
                       for r in results]
        lock_and_slot = [max(0.0, w - t) for w, t in zip(waits, task_phases)]
        verdicts = Counter(r.get("verdict") for r in results)
        phases: dict[str, list[float]] = {}
        for r in results:
            for k, v in ((r.get("details") or {}).get("phases") or {}).items():
                if isinstance(v, (int, float)):
                    phases.setdefault(k, []).append(v)
        row = {"run": name, "judged": len(results), "wall_s": round(wall, 1),
               "per_min": round(60 * len(results) / wall, 2) if wall > 0 else None,
               "gpu_util_mean": round(statistics.mean(util), 1) if util else None,
               "gpu_busy_share": round(sum(u > 0 for u in util) / len(util), 3) if util else None,
               "verdicts": dict(verdicts),
               "waits_by_cause_s": {"task_phases": round(sum(task_phases), 1),
                                    "gpu_lock_and_slot": round(sum(lock_and_slot), 1)},
               "waited_s": {"sum": round(sum(waits), 1),
                            "median": round(statistics.median(waits), 1) if waits else None,
                            "max": round(max(waits), 1) if waits else None},
               "phase_medians_s": {k: round(statistics.median(v), 3) for k, v in phases.items()}}
        rows.append(row)
        print(f"| {name} | {row['judged']} | {row['wall_s']} | {row['per_min']} | "
              f"{row['gpu_util_mean']}% | {row['gpu_busy_share']} | {verdicts.get('correct', 0)} "
              f"| {row['waited_s']['median']}, {row['waited_s']['max']} | "
              + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items(), key=str)) + " |")
    print()
    for row in rows:
        top = sorted(row["phase_medians_s"].items(), key=lambda kv: -kv[1])[:8]
        causes = row["waits_by_cause_s"]
        print(f"- {row['run']}: waits {causes['task_phases']} s in the task's phases, "
              f"{causes['gpu_lock_and_slot']} s for the GPU lock or a slot; phase medians "
              + ", ".join(f"{k} {v:.2f} s" for k, v in top))
    (out / "figures.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
