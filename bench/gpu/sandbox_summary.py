"""Issue 34's GPU figures from bench/gpu/sandbox_cost.sh's output folder: per kernel, the verdict and
the median with and without the sandbox; what entering it cost; the containment facts; the
GPU's own utilisation while the evaluations ran (nvidia-smi)."""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def load(path: Path) -> dict[str, dict]:
    out = {}
    for line in path.read_text().splitlines() if path.exists() else []:
        if line.strip().startswith("{"):
            r = json.loads(line)
            if "kernel" in r:
                out[f"{Path(r['kernel']).parent.name}/{Path(r['kernel']).name}"] = r
    return out


def median_ms(r: dict) -> float | None:
    timing = (r.get("details") or {}).get("timing") or {}
    value = timing.get("candidate_ms") or timing.get("median_ms")
    if isinstance(value, dict):
        value = value.get("median")
    return value if isinstance(value, (int, float)) else r.get("runtime_ms")


def smi_utilization(smi: Path) -> list[int]:
    """nvidia-smi's utilization samples (percent) from its CSV; none if it is missing."""
    if not smi.exists():
        return []
    return [int(l.split(",")[1].split()[0]) for l in smi.read_text().splitlines()[1:]
            if l.count(",") >= 2 and l.split(",")[1].strip().split()[0].isdigit()]


def ratio_line(what: str, ratio: str, ratios: list[float]) -> str:
    """How far apart two modes' speedups of the same kernels are."""
    dev = [abs(r - 1) for r in ratios]
    return (f"{what}: {len(ratios)}; speedup ratio {ratio} median "
            f"{statistics.median(ratios):.4f}, largest deviation {max(dev) * 100:.2f}%, "
            f"within 1%: {sum(d <= 0.01 for d in dev)} of {len(dev)}.")


def main(out: Path) -> None:
    print("# Issue 34 on the H200: the sandbox beside no sandbox\n")
    print("| kernel | verdict (sandbox) | verdict (none) | speedup (sandbox) | speedup (none) | "
          "ratio |")
    print("|---|---|---|---|---|---|")
    ratios, same, total, enter, confine = [], 0, 0, [], []
    containment = None
    for level in (2, 1):
        boxed = load(out / f"eval_l{level}_sandbox.jsonl")
        bare = load(out / f"eval_l{level}_no-sandbox.jsonl")
        for name in sorted(set(boxed) | set(bare)):
            a, b = boxed.get(name, {}), bare.get(name, {})
            total += 1
            same += a.get("verdict") == b.get("verdict")
            sa, sb = a.get("speedup"), b.get("speedup")
            ratio = sa / sb if sa and sb else None
            if ratio and a.get("verdict") == "correct":
                ratios.append(ratio)
            phases = (a.get("details") or {}).get("phases") or {}
            if "sandbox.enter" in phases:
                enter.append(phases["sandbox.enter"])
            if "sandbox.confine" in phases:
                confine.append(phases["sandbox.confine"])
            containment = containment or (a.get("details") or {}).get("containment")
            fmt = lambda v: f"{v:.3g}" if isinstance(v, (int, float)) else "-"  # noqa: E731
            print(f"| {name} | {a.get('verdict', '-')} | {b.get('verdict', '-')} | {fmt(sa)} | "
                  f"{fmt(sb)} | {fmt(ratio)} |")
    print(f"\nVerdicts identical: {same} of {total}.")
    if ratios:
        print(ratio_line("Correct kernels", "sandbox/none", ratios))
    for name, values in (("enter", enter), ("confine", confine)):
        if values:
            print(f"sandbox.{name}: median {statistics.median(values) * 1000:.0f} ms, max "
                  f"{max(values) * 1000:.0f} ms over {len(values)} candidates.")
    print("\nContainment (first result):\n```\n" + json.dumps(containment, indent=1) + "\n```")
    util = smi_utilization(out / "smi.csv")
    if util:
        print(f"\nnvidia-smi: {len(util)} samples, GPU busy (utilization > 0) in "
              f"{sum(u > 0 for u in util) * 100 // len(util)}%, mean utilization "
              f"{statistics.mean(util):.0f}%.")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
