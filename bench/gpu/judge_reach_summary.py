"""bench/gpu/judge_reach.sh's figures: per hand-written Level-2 kernel, the verdict and speedup
before and after every thread was confined (same binary, the two workers); what the sandbox
and the dispatcher check cost a candidate (its phases); issue 53's cases on the GPU."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from issue34_summary import load  # One reader of eval --json lines per kernel.


def fmt(v: object) -> str:
    return f"{v:.4g}" if isinstance(v, (int, float)) else "-"


def main(out: Path) -> None:
    after, before = load(out / "eval_l2_after.jsonl"), load(out / "eval_l2_before.jsonl")
    print("# Issue 53 on the GPU: before and after\n")
    print("| kernel | verdict before | verdict after | speedup before | speedup after | ratio |")
    print("|---|---|---|---|---|---|")
    ratios, same = [], 0
    phases: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    for name in sorted(set(after) | set(before)):
        a, b = after.get(name, {}), before.get(name, {})
        same += a.get("verdict") == b.get("verdict")
        sa, sb = a.get("speedup"), b.get("speedup")
        ratio = sa / sb if sa and sb else None
        if ratio and a.get("verdict") == b.get("verdict") == "correct":
            ratios.append(ratio)
        for side, r in (("after", a), ("before", b)):
            for key, seconds in ((r.get("details") or {}).get("phases") or {}).items():
                if key.startswith(("sandbox.", "dispatch.")):
                    phases[side].setdefault(key, []).append(seconds)
        print(f"| {name} | {b.get('verdict', '-')} | {a.get('verdict', '-')} | {fmt(sb)} | "
              f"{fmt(sa)} | {fmt(ratio)} |")
    print(f"\nVerdicts identical: {same} of {len(set(after) | set(before))}.")
    if ratios:
        dev = [abs(r - 1) for r in ratios]
        print(f"Correct in both: {len(ratios)}; speedup ratio after/before median "
              f"{statistics.median(ratios):.4f}, largest deviation {max(dev) * 100:.2f}%, "
              f"within 1%: {sum(d <= 0.01 for d in dev)} of {len(dev)}.")
    print("\nWhat a candidate's evaluation spent (median / max, ms):\n")
    for side in ("before", "after"):
        parts = ", ".join(f"{k} {statistics.median(v) * 1000:.1f} / {max(v) * 1000:.1f}"
                          for k, v in sorted(phases[side].items()))
        print(f"- {side}: {parts or 'none recorded'}")
    for side in ("after", "before"):
        path = out / f"sandbox_{side}.txt"
        if path.exists():
            lines = path.read_text().splitlines()
            keep = [l for l in lines if l.startswith(("FAILED", "ERROR", "SKIPPED", "E   "))]
            print(f"\ntests/sandbox {side}: {lines[-1] if lines else '(empty)'}")
            print("\n".join(f"    {l[:300]}" for l in keep[:24]))
    smi = out / "smi.csv"
    if smi.exists():
        util = [int(l.split(",")[1].split()[0]) for l in smi.read_text().splitlines()[1:]
                if l.count(",") >= 2 and l.split(",")[1].strip().split()[0].isdigit()]
        if util:
            print(f"\nnvidia-smi: {len(util)} samples, mean utilization {statistics.mean(util):.0f}%.")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
