"""Summarises bench/gpu/gpu_time_speedups.sh's results (markdown on stdout): per microsecond
kernel, its speedup in each evaluation alone and at --slots 4 and their spread; the Level-2
kernels' verdicts and their GPU, call and kernel scopes; the TritonBench-G operators' speedups.

    python3 bench/gpu/gpu_time_summary.py OUT
"""
from __future__ import annotations

import glob
import json
import os
import sys


def rows(path: str) -> list[dict]:
    out = []
    for line in open(path):
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def name(r: dict) -> str:
    return f"{r.get('task', '?')}/{os.path.basename(r.get('kernel', '?'))}"


def fmt(x: float | None, digits: str = ".4g") -> str:
    return "-" if x is None else format(x, digits)


def gpu_us(r: dict) -> str:
    c = (r.get("timing") or {}).get("candidate_gpu") or {}
    if not c:
        return "-"
    return f"{1e3 * c['median_ms']:.3g} +-{100 * (c.get('median_halfwidth') or 0):.1f}%"


def spread(values: list[float]) -> str:
    return f"{100 * (max(values) / min(values) - 1):.1f}%" if len(values) > 1 and min(values) > 0 \
        else "-"


def main(out: str) -> None:
    runs: dict[str, dict[str, dict]] = {}
    for path in sorted(glob.glob(f"{out}/us_*.jsonl")):
        label = os.path.basename(path)[3:-6]
        for r in rows(path):
            runs.setdefault(name(r), {})[label] = r
    print("## Microsecond kernels: strict speedups per evaluation\n")
    labels = sorted({label for per in runs.values() for label in per})
    print("| kernel | " + " | ".join(labels) + " | given | spread alone | spread all |")
    print("|---|" + "---|" * (len(labels) + 3))
    for kernel, per in sorted(runs.items()):
        if "Conv" in kernel:  # The heavy neighbours.
            continue
        cells, alone, every, given = [], [], [], 0
        for label in labels:
            r = per.get(label)
            if r is None:
                cells.append("")
                continue
            s = r.get("speedup")
            given += s is not None
            if s is not None:
                every.append(s)
                if label.startswith("alone"):
                    alone.append(s)
            cells.append(f"{r['verdict']} {fmt(s)}x ({r.get('scope')}; {gpu_us(r)} us; "
                         f"call {fmt(r.get('speedup_call'))}x, kernel {fmt(r.get('speedup_kernel'))}x)")
        print(f"| {kernel} | " + " | ".join(cells) +
              f" | {given} of {len(per)} | {spread(alone)} | {spread(every)} |")
    print("\nFindings of the first evaluation alone:\n")
    for kernel, per in sorted(runs.items()):
        r = per.get("alone_1")
        if r and r.get("findings"):
            for f in r["findings"]:
                print(f"- {kernel}: {f[:300]}")
    level2 = f"{out}/eval_l2.jsonl"
    if os.path.exists(level2):
        print("\n## Level-2 hand-written kernels (strict)\n")
        print("| kernel | verdict | scope | GPU speedup | call | kernel | GPU / kernel |")
        print("|---|---|---|---|---|---|---|")
        for r in rows(level2):
            s, k = r.get("speedup"), r.get("speedup_kernel")
            ratio = fmt(s / k, ".3f") if s and k else "-"
            print(f"| {name(r)} | {r['verdict']} | {r.get('scope')} | {fmt(s)} | "
                  f"{fmt(r.get('speedup_call'))} | {fmt(k)} | {ratio} |")
            if r["verdict"] != "correct":
                print(f"|  | {r.get('reason', '')[:200]} | | | | | |")
    tb = f"{out}/tritonbench.jsonl"
    if os.path.exists(tb):
        print("\n## TritonBench-G operators, their own code\n")
        values = []
        for r in rows(tb):
            s = r.get("speedup")
            if s:
                values.append(s)
            why = next((f for f in r.get("findings") or [] if "operator's" in f), "")
            print(f"- {name(r)}: {r['verdict']} {fmt(s)}x ({r.get('scope')}; traced call "
                  f"{fmt(r.get('speedup_kernel'))}x; candidate {gpu_us(r)}) {why[:160]}")
        inside = sum(0.95 <= v <= 1.05 for v in values)
        print(f"\n{inside} of {len(values)} within 0.95-1.05x")


if __name__ == "__main__":
    main(sys.argv[1])
