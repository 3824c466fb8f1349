"""Adaptive against fixed timing, kernel by kernel: two `eval --json` outputs of the same
kernels (bench/gpu/stream_escape_adaptive.sh). Prints a markdown table: each side's candidate and
reference medians, runs and noise figure, the medians' difference, and the timing phase's
seconds."""

from __future__ import annotations

import json
import sys


def read(path: str) -> dict[str, dict]:
    rows = {}
    try:
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                rows[r.get("kernel") or r["task"]] = r
    except FileNotFoundError:
        pass
    return rows


def side(r: dict) -> tuple[float, float, int, float, float, str]:
    t = r["timing"]
    c, ref = t["candidate"], t["reference"]
    return (c["median_ms"], ref["median_ms"], c["runs"], c.get("median_halfwidth") or float("nan"),
            r["details"]["phases"].get("timing", float("nan")),
            r["details"].get("timing", {}).get("stopped", "?"))


def main() -> None:
    adaptive, fixed = read(sys.argv[1]), read(sys.argv[2])
    print("| kernel | verdicts | adaptive: median ms (runs, ±, stopped by) | fixed: median ms (runs, ±) | "
          "candidate Δ | reference Δ | timing s adaptive / fixed |")
    print("|---|---|---|---|---|---|---|")
    for name in sorted(set(adaptive) | set(fixed)):
        a, f = adaptive.get(name), fixed.get(name)
        verdicts = f"{a and a['verdict']} / {f and f['verdict']}"
        if not (a and f and a["verdict"] == f["verdict"] == "correct"):
            print(f"| {name.split('/')[-2]} | {verdicts} | | | | | |")
            continue
        ac, ar, an, ah, at, stop = side(a)
        fc, fr, fn, fh, ft, _ = side(f)
        print(f"| {name.split('/')[-2][:40]} | {verdicts} | {ac:.4g} ({an}, {100 * ah:.2g}%, {stop}) | "
              f"{fc:.4g} ({fn}, {100 * fh:.2g}%) | {100 * (ac / fc - 1):+.2f}% | "
              f"{100 * (ar / fr - 1):+.2f}% | {at:.2f} / {ft:.2f} |")


if __name__ == "__main__":
    main()
