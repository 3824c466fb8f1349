"""--shrink: a task too big for the machine judged on smaller sizes as a smoke test, and every
result, result file and report saying so."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import Cli, example

FAST = ["--trials", "2", "--timed-runs", "3", "--warmup", "1", "--no-cache", "--timeout", "120"]

# KernelBench's level1/19_ReLU.py as it is: 4096 x 393216 floats, 6 GB per tensor.
BIG_TASK = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)

batch_size = 4096
dim = 393216

def get_inputs():
    x = torch.rand(batch_size, dim)
    return [x]

def get_init_inputs():
    return []
'''


def test_a_task_too_big_for_the_machine_runs_shrunk_and_says_so(cli: Cli, tmp_path: Path) -> None:
    task = tmp_path / "19_ReLU.py"
    task.write_text(BIG_TASK)
    kernel = example("kernels", "relu", "ok.py")
    results = tmp_path / "eval_results.json"
    code, by_file = cli.eval_json("--task", str(task), "--kernel", kernel, "--shrink", "64",
                                  "--kernelbench-results", str(results), *FAST)
    r = by_file["ok.py"]
    assert code == 0 and r["verdict"] == "correct", r["reason"]
    assert r["shrink"] == 64
    assert r["shrunk"] == ["batch_size 4096 -> 64", "dim 393216 -> 6144"]
    [sample] = json.loads(results.read_text())["19"]  # KernelBench keys by problem number.
    assert sample["metadata"]["adaexplore"]["shrink"] == 64

    p = cli.run("eval", "--device", "cpu", "--task", str(task), "--kernel", kernel, "--shrink",
                "64", *FAST)
    assert p.returncode == 0, p.stderr
    assert "[smoke test: sizes shrunk 64x (batch_size 4096 -> 64, dim 393216 -> 6144), not the " \
        "task's own]" in p.stdout, p.stdout
    bad = cli.run("eval", "--device", "cpu", "--task", str(task), "--kernel", kernel, "--shrink",
                  "0")
    assert bad.returncode == 2 and "--shrink 0: must be at least 1" in bad.stderr, bad.stderr


def test_a_shrunk_run_is_marked_in_its_reports(cli: Cli, tmp_path: Path) -> None:
    db = tmp_path / "run.sqlite"
    recording = example("recordings", "relu.jsonl")
    run = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", f"replay:{recording}",
                  "--steps", "2", "--db", str(db), "--out", str(tmp_path / "out"), "--shrink",
                  "4", "--device", "cpu", *FAST, timeout=600)
    assert run.returncode == 0, run.stderr
    report = json.loads(cli.run("report", str(db), "--json").stdout)
    [entry] = report["runs"]
    assert entry["shrink"] == 4
    assert "sizes shrunk 4x (--shrink: a smoke test, not the tasks' own sizes)" in \
        entry["environment"]
    assert "sizes shrunk 4x" in cli.run("report", str(db)).stdout
