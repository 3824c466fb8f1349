import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def pytest_addoption(parser):
    parser.addoption("--adaexplore-binary", default=str(ROOT / "build" / "adaexplore"))
    parser.addoption("--redteam-device", default="cpu", choices=["cpu", "cuda"],
                     help="cuda runs every case, the GPU-only ones included")
    parser.addoption("--redteam-python", default=str(ROOT / ".venv" / "bin" / "python"),
                     help="the worker's interpreter")
    parser.addoption("--redteam-slots", type=int, default=0,
                     help="evaluations per device at once (0: the eval default)")
    parser.addoption("--redteam-profile", default="strict", choices=["strict", "paper"],
                     help="the evaluation profile; a case's `paper:` line is its verdict under "
                          "paper where that differs (its docstring says why)")
