"""The real binary driven as a user would, for the end-to-end and fault tests (tests/e2e,
tests/faults): a `Cli` with its own cache folder, the example files, and an OpenAI-compatible
server on loopback."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

sys.path.insert(0, str(ROOT / "tests" / "fakes"))
from openai_stub import Reply, serve  # noqa: E402


class Cli:
    def __init__(self, binary: str, tmp: Path) -> None:
        self.binary = str(Path(binary).resolve())
        self.tmp = tmp
        self.env = dict(os.environ, XDG_CACHE_HOME=str(tmp / "cache"),
                        ADAEXPLORE_PYTHON=str(ROOT / ".venv" / "bin" / "python"))

    def run(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        return subprocess.run([self.binary, *args], capture_output=True, text=True,
                              env=self.env, timeout=timeout, cwd=self.tmp)

    def eval_json(self, *args: str, timeout: float = 600) -> tuple[int, dict[str, dict[str, Any]]]:
        """Runs eval --json on the CPU; returns the exit code and results by kernel file name (a
        problem with no kernels as "missing:<task>")."""
        p = self.run("eval", "--device", "cpu", "--json", *args, timeout=timeout)
        results: dict[str, dict[str, Any]] = {}
        for line in p.stdout.splitlines():
            if line.strip():
                r = json.loads(line)
                key = f"missing:{r['task']}" if r.get("missing") else Path(r["kernel"]).name
                results[key] = r
        if not results:
            raise AssertionError(f"no results; exit {p.returncode}\nstderr:\n{p.stderr}")
        return p.returncode, results


def example(*parts: str) -> str:
    return str(EXAMPLES.joinpath(*parts))


@contextlib.contextmanager
def llm_server(cli: Cli, reply: Reply, key: str) -> Iterator[str]:
    """An OpenAI-compatible server on loopback answering with `reply`, which `cli`'s commands
    reach through OPENAI_BASE_URL with OPENAI_API_KEY=`key`, for the duration of the block."""
    httpd, url = serve(reply)
    cli.env.update(OPENAI_BASE_URL=url, OPENAI_API_KEY=key)
    try:
        yield url
    finally:
        httpd.shutdown()
        httpd.server_close()


def kill_once_recorded(proc: subprocess.Popen, db: Path, nodes: int,
                       timeout_s: float = 600) -> None:
    """SIGKILLs a running `run` once its database holds `nodes` steps (or after `timeout_s`)."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        try:
            if db.exists():
                with sqlite3.connect(db) as c:
                    if c.execute("SELECT count(*) FROM nodes").fetchone()[0] >= nodes:
                        break
        except sqlite3.OperationalError:  # Not created yet, or locked for a moment.
            pass
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--adaexplore-binary", default=str(ROOT / "build" / "adaexplore"))


@pytest.fixture()
def cli(request: pytest.FixtureRequest, tmp_path: Path) -> Cli:
    return Cli(request.config.getoption("--adaexplore-binary"), tmp_path)
