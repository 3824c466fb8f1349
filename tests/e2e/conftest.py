"""End-to-end tests of `adaexplore eval`: the real binary, the real worker in CPU mode (Triton's
interpreter), the example tasks and kernels. Every verdict and every kind of bad input is here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from cli import EXAMPLES, ROOT, Cli, example, llm_server, serve  # noqa: E402,F401


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--adaexplore-binary", default=str(ROOT / "build" / "adaexplore"))


@pytest.fixture()
def cli(request: pytest.FixtureRequest, tmp_path: Path) -> Cli:
    return Cli(request.config.getoption("--adaexplore-binary"), tmp_path)
