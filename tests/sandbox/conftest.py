"""Sandbox red team: issue 34's hostile kernels against the real binary, with real processes
(tests/support/cli.py). On the CPU in CI; bench/gpu/sandbox_cost.sh runs them on the GPU."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import cli as support  # noqa: E402
from cli import Cli, cli, example  # noqa: E402,F401


def pytest_addoption(parser: pytest.Parser) -> None:
    support.pytest_addoption(parser)
    parser.addoption("--sandbox-device", default="cpu", choices=["cpu", "cuda"])
    parser.addoption("--sandbox-python", default="",
                     help="the worker's interpreter (default: the project's .venv)")
