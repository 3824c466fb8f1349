"""Fixtures: a real worker process (CPU mode, Triton's interpreter) driven over its protocol
socket, the way the C++ side drives it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]
ROOT = PYTHON_DIR.parent
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(PYTHON_DIR))

from adaexplore_worker.protocol.channel import Channel  # noqa: E402

GOLDEN = ROOT / "tests" / "golden" / "protocol"

# Options as the C++ strict profile sends them (the golden job both sides' tests check), scaled
# down for the CPU.
CPU_OPTIONS: dict[str, Any] = dict(
    json.loads((GOLDEN / "job_strict.json").read_text())["options"],
    device="cpu", trials=3, seed=1234, warmup_runs=1, timed_runs=3,
    reject_rules=[])  # Static findings are facts here; tests that reject say so.


def task_file(path: str, kind: str = "kernelbench", workload: dict[str, Any] | None = None,
              data_root: str = "") -> dict[str, Any]:
    """A job's `task` as the C++ side sends it."""
    return {"filename": Path(path).name, "source": Path(path).read_text(), "kind": kind,
            "workload": workload, "data_root": data_root}


class Worker:
    def __init__(self, tmp: Path, slots: int = 1, reference_cache_mb: float = 0,
                 ahead: int = 0, env: dict[str, str] | None = None, sandbox: bool = True,
                 lock_patience_s: float = 0) -> None:
        self.scratch = tmp
        ours, theirs = socket.socketpair()
        self.sock = ours
        env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(PYTHON_DIR), **(env or {})}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "adaexplore_worker", "--fd", str(theirs.fileno()),
             "--device", "cpu", "--scratch", str(tmp), "--slots", str(slots),
             "--reference-cache-mb", str(reference_cache_mb), "--ahead", str(ahead),
             "--lock-patience", str(lock_patience_s),
             *(["--sandbox"] if sandbox else [])],
            pass_fds=[theirs.fileno()], env=env, stdout=subprocess.DEVNULL,
            stderr=open(tmp / "worker.log", "w"), start_new_session=True)
        theirs.close()
        self.channel = Channel(ours.fileno())
        self.hello = self.channel.read_blocking()

    def submit(self, task: str, kernel: str, timeout_s: float = 60, kind: str = "kernelbench",
               workload: dict[str, Any] | None = None, data_root: str = "",
               **overrides: Any) -> str:
        job_id = uuid.uuid4().hex[:12]
        options = dict(CPU_OPTIONS, **overrides.pop("options", {}))
        message = {"type": "eval", "id": job_id, "nonce": uuid.uuid4().hex,
                   "task": task_file(task, kind, workload, data_root),
                   "candidate": {"filename": Path(kernel).name,
                                 "source": Path(kernel).read_text()},
                   "options": options, "timeout_s": timeout_s, "memory_limit_mb": 0,
                   "reference_key": "", **overrides}
        self.channel.send(message)
        return job_id

    def result(self, job_id: str, limit_s: float = 120) -> dict[str, Any]:
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            message = self.channel.read_blocking()
            if message.get("type") == "result" and message.get("id") == job_id:
                return message["facts"]
        raise TimeoutError(job_id)

    def evaluate(self, task: str, kernel: str, **kw: Any) -> dict[str, Any]:
        return self.result(self.submit(task, kernel, **kw))

    def close(self) -> None:
        try:
            self.channel.send({"type": "shutdown"})
            self.proc.wait(timeout=20)
        except Exception:  # noqa: BLE001
            self.proc.kill()
            self.proc.wait()
        self.sock.close()


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory):
    w = Worker(tmp_path_factory.mktemp("worker"))
    yield w
    w.close()


@pytest.fixture(scope="module")
def bare_worker(tmp_path_factory: pytest.TempPathFactory):
    """A worker without the sandbox (--no-sandbox): its candidates write where the test sees
    the files, and their processes are the host's."""
    w = Worker(tmp_path_factory.mktemp("bare_worker"), sandbox=False)
    yield w
    w.close()


def task(name: str) -> str:
    return str(EXAMPLES / "tasks" / f"{name}.py")


def kernel(task_name: str, name: str) -> str:
    return str(EXAMPLES / "kernels" / task_name / f"{name}.py")
