"""adaexplore_worker.check_task on good and broken task files, in a subprocess as the tool runs
it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

GOOD = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(n, n)
    def forward(self, x):
        print("tasks may print")
        return torch.relu(self.lin(x)).sum(dim=1)

def get_inputs():
    return [torch.randn(4, 8)]

def get_init_inputs():
    return [8]
"""


def check_process(tmp_path: Path, source: str) -> subprocess.CompletedProcess:
    path = tmp_path / "task.py"
    path.write_text(source)
    return subprocess.run([sys.executable, "-m", "adaexplore_worker.check_task", str(path)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin",
                               "ADAEXPLORE_CHECK_NONCE": "n0nce"})


def run(tmp_path: Path, source: str) -> dict:
    p = check_process(tmp_path, source)
    assert p.returncode == 0, p.stderr
    [line] = [x for x in p.stdout.splitlines() if x.startswith("ADAEXPLORE_CHECK n0nce ")]
    return json.loads(line.split(" ", 2)[2])


def test_a_good_task_passes(tmp_path: Path) -> None:
    result = run(tmp_path, GOOD)
    assert result["ok"] is True
    assert result["outputs"] == [[4]]


@pytest.mark.parametrize("source, reason", [
    ("import torch\ndef f(:\n", "import raised SyntaxError"),
    (GOOD.replace("class Model", "class Other"), "no class Model"),
    (GOOD.replace("return [8]", "return 8"), "get_init_inputs() returned int"),
    (GOOD.replace("torch.randn(4, 8)", "torch.randn(4, 9)"), "forward raised RuntimeError"),
    (GOOD.replace(".sum(dim=1)", "[:0]"), "empty tensor"),
    (GOOD.replace("return torch.relu", "return 3 or torch.relu"), "other than tensors"),
])
def test_a_broken_task_says_why(tmp_path: Path, source: str, reason: str) -> None:
    result = run(tmp_path, source)
    assert result["ok"] is False
    assert reason in result["reason"]


def test_a_task_cannot_print_a_verdict_of_its_own(tmp_path: Path) -> None:
    """A task that prints a passing verdict and exits before the check ends does not know the
    nonce, so its line is not the check's (the caller sees no verdict: the task failed)."""
    forged = ("import json, os\n"
              "print('ADAEXPLORE_CHECK ' + os.environ.get('ADAEXPLORE_CHECK_NONCE', 'guess') "
              "+ ' ' + json.dumps({'ok': True, 'outputs': [[1]]}), flush=True)\n"
              "os._exit(0)\n")
    p = check_process(tmp_path, forged)
    assert "ADAEXPLORE_CHECK guess " in p.stdout  # The nonce was gone before the task ran.
    assert "ADAEXPLORE_CHECK n0nce " not in p.stdout
