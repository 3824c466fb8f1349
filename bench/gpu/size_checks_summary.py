"""Reads `adaexplore eval --json` lines and prints, per file: each kernel's verdict and its
checks at the other size sets; the kernels marked correct at the task's sizes only, with why; and
what the checks cost: their jobs' own time (busy_s: their phases, no waits for a slot) and their
children's wall time (waits included), over the candidate's own check phase (its phases but the
timing and the traced call: loading the task, its references, the import, the checks), and the
wall time over the candidate's whole evaluation, median and worst.

    python3 bench/gpu/size_checks_summary.py RESULTS.jsonl...
"""
import json
import os
import statistics
import sys

MARK = "correct at the task's sizes only"


def check_phase_s(result):
    phases = result.get("facts", result.get("details", {})).get("phases", {})
    return sum(v for k, v in phases.items() if isinstance(v, (int, float)) and "." not in k
               and k not in ("timing", "trace", "size_sets"))


for path in sys.argv[1:]:
    rows = []
    try:
        rows = [json.loads(line) for line in open(path) if line.strip().startswith("{")]
    except OSError as e:
        print(f"## {path}: {e}")
        continue
    print(f"## {os.path.basename(path)}: {len(rows)} results")
    shares, busy, whole, marked, correct = [], [], [], [], 0
    in_job = apart = 0
    for r in rows:
        checks = r.get("size_checks", [])
        said = " ".join(f"{c['set']}={c['outcome']}" for c in checks) or "-"
        print(f"{r['task'][:44]:44} {os.path.basename(r['kernel']):14} {r['verdict']:13} "
              f"{said:40} {'' if r['verdict'] == 'correct' else r['reason'][:120]}")
        if r["verdict"] != "correct":
            continue
        correct += 1
        for f in r.get("findings", []):
            if f.startswith(MARK) or f.startswith("the task's sizes cannot vary"):
                print(f"    {f[:400]}")
        if any(f.startswith(MARK) for f in r.get("findings", [])):
            marked.append(r)
        own = check_phase_s(r)
        # A set the candidate's own job checked waited for nothing: its share of that job's
        # size_sets phase is all it cost.
        spent = sum(c.get("busy_s", 0) if c.get("in_job") else c.get("wall_s", 0)
                    for c in checks)
        in_job += sum(1 for c in checks if c.get("in_job"))
        apart += sum(1 for c in checks if not c.get("in_job"))
        if checks and own > 0:
            shares.append(spent / own)
            if all("busy_s" in c for c in checks):
                busy.append(sum(c["busy_s"] for c in checks) / own)
        if checks and r.get("wall_s", 0) > 0:
            whole.append(spent / r["wall_s"])
    print(f"correct: {correct}; marked correct at the task's sizes only: {len(marked)}; "
          f"checks in the candidate's own job: {in_job}, in jobs of their own: {apart}")
    if busy:
        print(f"size checks' own time (busy_s) over the candidate's own check phase: median "
              f"{statistics.median(busy):.2f}, worst {max(busy):.2f} ({len(busy)} kernels)")
    if shares:
        print(f"size checks' wall time over the candidate's own check phase: median "
              f"{statistics.median(shares):.2f}, worst {max(shares):.2f} ({len(shares)} kernels)")
    if whole:
        print(f"over the candidate's whole evaluation: median {statistics.median(whole):.2f}, "
              f"worst {max(whole):.2f}")
