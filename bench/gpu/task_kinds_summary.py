"""Summarises bench/gpu/task_kinds.sh's output: per FlashInfer-Trace definition, how many workloads
passed and the speedups over the PyTorch reference (from the Trace lines); per TritonBench-G
operator, the verdict and speedup of its own code.

    python3 bench/gpu/task_kinds_summary.py OUT PART
"""

from __future__ import annotations

import json
import os
import statistics
import sys


def lines(path: str) -> list[dict]:
    if not os.path.exists(path):
        return []
    out = []
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def expert_table(results: dict[str, dict]) -> None:
    """Per definition with an expert baseline: the candidate against FlashInfer's own kernel, and
    that kernel against the PyTorch reference, over every workload (eval's details.workloads)."""
    rows = []
    for name in sorted(results):
        workloads = results[name].get("details", {}).get("workloads", [])
        timed = [w for w in workloads if w.get("expert")]
        if not timed:
            continue
        ours = [w["speedup_expert"] for w in timed if w.get("speedup_expert") is not None]
        theirs = [w["reference"]["median_ms"] / w["expert"]["median_ms"] for w in timed
                  if w.get("reference") and w["expert"]["median_ms"] > 0]
        rows.append((name, timed[0].get("expert_name", "?"), len(timed), len(workloads), ours,
                     theirs))
    notes = {n for r in results.values() for n in r.get("details", {}).get("notes", [])
             if "expert" in n}
    if not rows:
        print(f"\nno expert baseline timed; notes: {sorted(notes)[:3]}")
        return
    print("\n| definition | expert kernel | workloads timed | ours vs expert: mean | min | "
          "median | max | expert vs PyTorch reference: mean |")
    print("|---|---|---|---|---|---|---|---|")
    for name, expert, n, total, ours, theirs in rows:
        figures = (f"{statistics.mean(ours):.3f}x | {min(ours):.3f}x | "
                   f"{statistics.median(ours):.3f}x | {max(ours):.3f}x" if ours
                   else "- | - | - | -")
        ref = f"{statistics.mean(theirs):.3f}x" if theirs else "-"
        print(f"| {name} | {expert} | {n}/{total} | {figures} | {ref} |")
    if notes:
        print(f"expert notes: {sorted(notes)[:3]}")


def main() -> None:
    out, part = sys.argv[1], sys.argv[2]
    traces = lines(f"{out}/issue23_{part}_traces.jsonl")
    results = {os.path.basename(r["task"]) if "task" in r else "?": r
               for r in lines(f"{out}/issue23_{part}.jsonl")}
    by_def: dict[str, list[dict]] = {}
    for t in traces:
        by_def.setdefault(t["definition"], []).append(t)
    print(f"| definition | workloads passed | mean speedup (fast_p) | min | median | max | "
          f"verdict |")
    print("|---|---|---|---|---|---|---|")
    for name in sorted(by_def):
        rows = by_def[name]
        passed = [t for t in rows if t["evaluation"]["status"] == "PASSED"]
        speedups = [t["evaluation"]["performance"]["speedup_factor"] for t in passed]
        verdict = results.get(name, {}).get("verdict", "?")
        if speedups:
            print(f"| {name} | {len(passed)}/{len(rows)} | {statistics.mean(speedups):.3f}x | "
                  f"{min(speedups):.3f}x | {statistics.median(speedups):.3f}x | "
                  f"{max(speedups):.3f}x | {verdict} |")
        else:
            print(f"| {name} | 0/{len(rows)} | - | - | - | - | {verdict} |")
    missing = sorted(set(results) - set(by_def))
    for name in missing:
        r = results[name]
        print(f"| {name} | - | - | - | - | - | {r['verdict']}: {r['reason'][:120]} |")
    expert_table(results)
    statuses: dict[str, int] = {}
    for t in traces:
        statuses[t["evaluation"]["status"]] = statuses.get(t["evaluation"]["status"], 0) + 1
    print(f"trace statuses: {statuses}; definitions with a result: {len(results)}")
    tb = lines(f"{out}/issue23_tritonbench.jsonl")
    if tb:
        print()
        print("| TritonBench-G operator | verdict | speedup | note |")
        print("|---|---|---|---|")
        for r in sorted(tb, key=lambda r: r["task"]):
            sp = f"{r['speedup']:.3f}x" if r.get("speedup") is not None else "-"
            note = "" if r["verdict"] == "correct" else r["reason"][:140].replace("|", "/")
            print(f"| {r['task']} | {r['verdict']} | {sp} | {note} |")
        correct = [r for r in tb if r["verdict"] == "correct"]
        print(f"{len(correct)} of {len(tb)} correct; speedups "
              f"{[round(r['speedup'], 3) for r in correct]}")


if __name__ == "__main__":
    main()
