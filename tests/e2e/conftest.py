"""End-to-end tests of `adaexplore eval`: the real binary, the real worker in CPU mode (Triton's
interpreter), the example tasks and kernels. Every verdict and every kind of bad input is here."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
# The option and the fixture are pytest's once named here.
from cli import (EXAMPLES, ROOT, Cli, cli, example, kill_once_recorded,  # noqa: E402,F401
                 llm_server, pytest_addoption, serve)
