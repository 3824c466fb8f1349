"""Fault tests: what a hostile candidate, a broken file or an unusable endpoint does to the real
binary, with real processes (tests/support/cli.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
# The option and the fixture are pytest's once named here.
from cli import cli, pytest_addoption  # noqa: E402,F401
