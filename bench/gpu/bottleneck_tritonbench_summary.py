"""A table of TritonBench-G results (eval --json lines): scope, speedups, the trace's figures."""

import json
import sys


def row(r: dict) -> str:
    d = r.get("details", {})
    kt, rt = d.get("kernel_trace") or {}, d.get("reference_trace") or {}
    ranges = kt.get("setup_ranges") or {}
    setup = kt.get("setup_kernel_us") or {}
    t = r.get("timing") or {}
    fig = lambda v, f="{:.3g}": "-" if v is None else f.format(v)  # noqa: E731
    return (f"| {r.get('task')} | {r.get('verdict')} | {r.get('scope')} | {fig(r.get('speedup'))} "
            f"| {fig(t.get('candidate_kernel_us'))} / {fig(t.get('reference_kernel_us'))} "
            f"| {fig(kt.get('busy_us'))} / {fig(kt.get('operator_us'))} "
            f"| {fig(rt.get('busy_us'))} / {fig(rt.get('operator_us'))} "
            f"| {ranges.get('opened', '-')}/{ranges.get('traced', '-')} "
            f"| {fig(setup.get('own'))}/{fig(setup.get('pytorch'))}/{fig(setup.get('neutral'))} "
            f"| {(r.get('kernel_profile') or {}).get('bottleneck', '')} "
            f"| {(r.get('reason') or '')[:60]} |")


print("| task | verdict | scope | speedup | kernel us (cand / ref) | cand busy / operator us "
      "| ref busy / operator us | ranges opened/traced | setup us own/pytorch/neutral "
      "| bottleneck | reason |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for path in sys.argv[1:]:
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        print(f"| {path}: {e} |")
        continue
    for line in lines:
        if line.startswith("{"):
            r = json.loads(line)
            if "task" in r:
                print(row(r))
