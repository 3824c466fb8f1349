"""Summary of bench/gpu/quickstart_profiles.sh: per candidate, the verdict and speedup under KernelBench's
check (--profile kernelbench, the mean) and under ours (--profile strict, the median), and what
KernelBench's eval_results.json says of it; then what the JSON progress lines held."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def results(out: Path, profile: str) -> dict[tuple[str, str], dict]:
    path = out / f"eval_{profile}.jsonl"
    found = {}
    for line in path.read_text().splitlines() if path.exists() else []:
        r = json.loads(line)
        found[(r["task"], Path(r["kernel"]).name)] = r
    return found


def speedup(r: dict | None) -> str:
    if r is None:
        return "-"
    return f'{r["speedup"]:.3g}x' if r.get("speedup") else r["verdict"]


def main() -> None:
    out = Path(sys.argv[1])
    kb, strict = results(out, "kernelbench"), results(out, "strict")
    print("| task | kernel | kernelbench | strict | kernelbench verdict | strict verdict (check) |")
    print("|---|---|---|---|---|---|")
    for key in sorted(set(kb) | set(strict), key=lambda k: (int(k[0].split("_")[0]), k[1])):
        a, b = kb.get(key), strict.get(key)
        why = f' ({b["check"] or b["reason"][:60]})' if b and b["verdict"] != "correct" else ""
        print(f"| {key[0]} | {key[1]} | {speedup(a)} | {speedup(b)} | "
              f'{a["verdict"] if a else "-"} | {b["verdict"] if b else "-"}{why} |')
    for profile in ("kernelbench", "strict"):
        path = out / f"eval_results_{profile}.json"
        if not path.exists():
            print(f"\n{profile}: no eval_results.json")
            continue
        file = json.loads(path.read_text())
        samples = [s for problem in file.values() for s in problem]
        correct = [s for s in samples if s["correctness"]]
        print(f"\n{profile}: eval_results.json has {len(file)} problems, {len(samples)} samples, "
              f"{len(correct)} correct; e.g. problem {next(iter(file), '-')}: "
              + (json.dumps(correct[0]["runtime_stats"]) if correct else "no correct sample"))
        log = out / f"progress_{profile}.log"
        events = [json.loads(line) for line in log.read_text().splitlines()
                  if line.startswith("{")] if log.exists() else []
        progress = [e for e in events if e.get("event") == "progress"]
        if progress:
            last = progress[-1]
            print(f"{profile}: {len(progress)} JSON progress lines; the last: done {last['done']}"
                  f"/{last['total']}, {last['correct']} correct, {last['elapsed_s']} s")


if __name__ == "__main__":
    main()
