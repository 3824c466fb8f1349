"""Issue 40's CPU benchmark: the wall time of one task's search at K steps in flight against
K = 1, with a scripted LLM that takes DELAY seconds per reply (tests/e2e/scripted_llm.py).

    .venv/bin/python bench/cpu/in_flight_wall.py BINARY OUT_JSON [--delay 4] [--steps 6]

Two workloads, each at K = 1 and K = 3:
  cached: `--method ps`, every reply the same ReLU kernel: after its first evaluation each step's
          kernel comes from the result cache, so the wall time is the LLM's (the issue's target:
          K = 3 at most 0.55 of K = 1, all steps recorded);
  search: AdaExplore with the e2e script (proposals, reviser, tuner edits; kernels evaluated on
          the CPU, some wrong), the search as a user runs it.
Each run gets a fresh cache folder and run database."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "tests" / "fakes"))
from openai_stub import serve  # noqa: E402
from scripted_llm import GOOD, Script  # noqa: E402

FAST = ["--device", "cpu", "--timed-runs", "2", "--warmup", "0", "--trials", "2",
        "--timeout", "120"]


class Cached(Script):
    """Every reply one and the same kernel."""

    def reply(self, messages: list[dict]) -> str:
        with self.lock:
            self.calls.append("proposer")
        return f"Here is a kernel.\n```python\n{GOOD}```\n"


def run(binary: str, script: Script, method: str, k: int, steps: int) -> dict:
    server, url = serve(script.handle)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "run.sqlite"
        env = dict(os.environ, XDG_CACHE_HOME=str(Path(tmp) / "cache"), OPENAI_BASE_URL=url,
                   OPENAI_API_KEY="sk-bench", ADAEXPLORE_PYTHON=str(ROOT / ".venv/bin/python"))
        start = time.monotonic()
        p = subprocess.run([binary, "run", "--task", str(ROOT / "examples/tasks/relu.py"),
                            "--llm", "openai:scripted", "--method", method, "--steps", str(steps),
                            "--in-flight", str(k), "--db", str(db), "--out", str(Path(tmp) / "o"),
                            "--json", *FAST], env=env, cwd=tmp, capture_output=True, text=True,
                           timeout=1800)
        wall = time.monotonic() - start
        server.shutdown()
        if p.returncode != 0:
            raise SystemExit(f"run failed ({p.returncode}):\n{p.stderr[-3000:]}")
        with sqlite3.connect(db) as c:
            rows = c.execute("SELECT result FROM nodes ORDER BY node").fetchall()
        plans = [json.loads(r)["plan"] for (r,) in rows]
        best = json.loads(p.stdout)["tasks"][0]["best"]
    return {"method": method, "k": k, "wall_s": round(wall, 2), "steps_recorded": len(rows),
            "step_numbers": sorted(pl["step"] for pl in plans),
            "planned_with_others_in_flight": sum(1 for pl in plans if pl["in_flight"]),
            "llm_calls": len(script.calls), "most_calls_at_once": script.most_at_once,
            "best_verdict": best.get("verdict"), "best_speedup": best.get("speedup")}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("out")
    parser.add_argument("--delay", type=float, default=4.0)
    parser.add_argument("--steps", type=int, default=6)
    args = parser.parse_args()
    args.binary = str(Path(args.binary).resolve())
    results = []
    for workload, method, make in (("cached", "ps", Cached), ("search", "adaexplore", Script)):
        for k in (1, 3):
            row = run(args.binary, make(delay_s=args.delay), method, k, args.steps)
            row["workload"] = workload
            results.append(row)
            print(json.dumps(row), flush=True)
    summary = {"delay_s": args.delay, "steps": args.steps, "runs": results, "ratios": {}}
    for workload in ("cached", "search"):
        walls = {r["k"]: r["wall_s"] for r in results if r["workload"] == workload}
        summary["ratios"][workload] = round(walls[3] / walls[1], 3)
    print(json.dumps(summary["ratios"]))
    Path(args.out).write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
