"""Summarises bench/gpu/null_selftest.sh: for each setting, how many tasks were checked, which
tasks trivial outputs pass (degenerate, with the null kernels that pass), and which tasks could
not be checked (their reference failed). Compares with the tasks that
../shared/reference/kernelbench-harness-and-hacks.md names as degenerate.

  python3 selftest_summary.py OUT/selftest_<setting>_<level>.jsonl ... [--markdown FILE]
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path

# Named in the catalogue (section 3.2, classes 2 and 4): "zeros pass" and identity problems.
CATALOGUE = {
    "level1/19_ReLU": "identity under torch.rand inputs",
    "level1/20_LeakyReLU": "identity under torch.rand inputs",
    "level1/31_ELU": "identity under torch.rand inputs",
    "level1/32_HardTanh": "identity under torch.rand inputs",
    "level1/23_Softmax": "zeros pass (outputs ~2.5e-6)",
    "level1/37_FrobeniusNorm_": "zeros pass (outputs ~4e-5)",
    "level1/39_L2Norm_": "zeros pass at bf16 / 1e-2",
    "level1/53_Min_reduction_over_a_dimension": "zeros pass at bf16 / 1e-2",
    "level2/23_Conv3d_GroupNorm_Mean": "zeros pass (outputs ~1e-9)",
    "level2/66_Matmul_Dropout_Softmax": "outputs ~6e-5",
}
NAME = re.compile(r"selftest_(?P<setting>[a-z]+-[a-z0-9]+)_(?P<level>level\d)\.jsonl$")


def load(paths: list[str]) -> dict[str, dict[str, dict]]:
    """setting -> 'level/task' -> result."""
    out: dict[str, dict[str, dict]] = defaultdict(dict)
    for p in paths:
        m = NAME.search(p)
        if not m:
            raise SystemExit(f"{p}: not a selftest_<setting>_<level>.jsonl file")
        for line in Path(p).read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                out[m["setting"]][f"{m['level']}/{r['task']}"] = r
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    results = load(args.files)
    lines = ["| setting | tasks | checked | degenerate | reference failed |", "|---|---|---|---|---|"]
    detail: list[str] = []
    for setting, by_task in sorted(results.items()):
        probed = {t: r for t, r in by_task.items() if r["verdict"] == "runtime_error"
                  and "self-test probe" in (r.get("reason", "") + r.get("error", ""))}
        failed = sorted(t for t in by_task if t not in probed)
        degenerate = {t: r["degenerate"] for t, r in probed.items() if r.get("degenerate")}
        lines.append(f"| {setting} | {len(by_task)} | {len(probed)} | {len(degenerate)} | "
                     f"{len(failed)} |")
        detail.append(f"\n### {setting}: degenerate tasks\n")
        detail.append("| task | null kernels that pass | named in the catalogue |")
        detail.append("|---|---|---|")
        for t in sorted(degenerate):
            key = t if t in CATALOGUE else None
            detail.append(f"| {t} | {', '.join(degenerate[t])} | "
                          f"{CATALOGUE[key] if key else 'no'} |")
        missed = sorted(k for k in CATALOGUE
                        if k not in degenerate)
        detail.append(f"\nNamed in the catalogue, not degenerate here: "
                      f"{', '.join(missed) if missed else 'none'}.")
        if failed:
            detail.append(f"\nReference failed (not checked): " + "; ".join(
                f"{t} ({by_task[t]['verdict']}: {by_task[t].get('reason', '')[:120]})"
                for t in failed))
    text = "\n".join(lines + detail) + "\n"
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text)


if __name__ == "__main__":
    main()
