"""bench/gpu/judge_reach.sh's figures: per hand-written Level-2 kernel, the verdict and speedup
before and after a change to the worker (same binary, the two workers); what the sandbox, the
dispatcher check and the judge cost a candidate (its phases, the judge's wall time); issue 53's
cases on the GPU."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from issue34_summary import load, ratio_line, smi_utilization  # One reader of eval --json, one comparison.


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
                if key.startswith(("sandbox.", "dispatch.", "check.record", "reference.seal")):
                    phases[side].setdefault(key, []).append(seconds)
            judge = (r.get("details") or {}).get("judge") or {}
            if isinstance(judge.get("wall_s"), (int, float)):
                phases[side].setdefault("judge (its own process)", []).append(judge["wall_s"])
        print(f"| {name} | {b.get('verdict', '-')} | {a.get('verdict', '-')} | {fmt(sb)} | "
              f"{fmt(sa)} | {fmt(ratio)} |")
    print(f"\nVerdicts identical: {same} of {len(set(after) | set(before))}.")
    if ratios:
        print(ratio_line("Correct in both", "after/before", ratios))
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
    util = smi_utilization(out / "smi.csv")
    if util:
        print(f"\nnvidia-smi: {len(util)} samples, mean utilization {statistics.mean(util):.0f}%.")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
