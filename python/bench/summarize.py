"""Prints `adaexplore eval --json` results as a short table (used at the end of GPU runs)."""

import json
import sys
from pathlib import Path


def main() -> int:
    rows = []
    for path in sys.argv[1:]:
        for line in Path(path).read_text().splitlines():
            if line.strip():
                rows.append(json.loads(line))
    print(f"{'task':34} {'kernel':28} {'verdict':14} {'speedup':>8} {'kern ms':>9} "
          f"{'ref ms':>9} {'CV%':>5}  reason")
    for r in rows:
        timing = r.get("timing") or {}
        cand = timing.get("candidate") or {}
        ref = timing.get("reference") or {}
        speedup = f"{r['speedup']:.3f}" if r.get("speedup") is not None else "-"
        kms = f"{cand['median_ms']:.4f}" if cand else "-"
        rms = f"{ref['median_ms']:.4f}" if ref else "-"
        cv = f"{100 * cand['cv']:.1f}" if cand else "-"
        reason = "" if r["verdict"] == "correct" else r["reason"][:90]
        print(f"{r['task'][:34]:34} {Path(r['kernel']).name[:28]:28} {r['verdict']:14} "
              f"{speedup:>8} {kms:>9} {rms:>9} {cv:>5}  {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
