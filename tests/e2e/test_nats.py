"""Scale-out through a real NATS JetStream server on loopback: `adaexplore worker --nats` hosts
(CPU workers here) serve `adaexplore eval --nats`. A host killed in the middle of a job: the job is
redelivered to the other host and finished once. The server restarted in the middle of a batch:
every result arrives, none twice. A new best confirmed by a second measurement on the other host."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest

from conftest import Cli, example, llm_server
from scripted_llm import Script

pytestmark = pytest.mark.skipif(shutil.which("nats-server") is None,
                                reason="nats-server is not installed (tools/setup.sh installs it)")

FAST = ["--timed-runs", "2", "--warmup", "0", "--trials", "2", "--no-cache", "--json"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class NatsServer:
    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.store = tmp / "jetstream"
        self.log = tmp / "nats-server.log"
        self.url = f"nats://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(["nats-server", "-js", "-sd", str(self.store), "-a",
                                          "127.0.0.1", "-p", str(self.port)],
                                         stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise AssertionError("nats-server did not start:\n" + self.log.read_text())

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)


@pytest.fixture()
def nats(tmp_path: Path) -> Iterator[NatsServer]:
    server = NatsServer(tmp_path)
    server.start()
    yield server
    server.stop()


class Host:
    """One `adaexplore worker --nats` process in its own session (killed as a whole: a host)."""

    def __init__(self, cli: Cli, url: str, name: str) -> None:
        self.name = name
        self.log = cli.tmp / f"{name}.log"
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                [cli.binary, "worker", "--nats", url, "--device", "cpu", "--name", name,
                 "--ack-wait", "3", "--slots", "2"],
                stdout=log, stderr=subprocess.STDOUT, env=cli.env, cwd=cli.tmp,
                start_new_session=True)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for(self, needle: str, limit_s: float = 120) -> None:
        deadline = time.monotonic() + limit_s
        while needle not in self.text():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"{self.name} never said {needle!r}:\n{self.text()}")
            time.sleep(0.05)

    def kill(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture()
def hosts(cli: Cli, nats: NatsServer) -> Iterator[list[Host]]:
    started: list[Host] = []
    yield started
    for host in started:
        host.stop()


def slow_kernel(tmp: Path) -> Path:
    """The correct ReLU, one second per call: long enough to kill its host in the middle."""
    source = Path(example("kernels", "relu", "ok.py")).read_text()
    source = source.replace("import torch\n", "import time\n\nimport torch\n", 1)
    source = source.replace("        x = x.contiguous()\n",
                            "        time.sleep(1.0)\n        x = x.contiguous()\n", 1)
    folder = tmp / "slow"
    folder.mkdir(exist_ok=True)
    path = folder / "slow.py"
    path.write_text(source)
    return path


def results(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_a_host_killed_mid_job_loses_nothing(cli: Cli, nats: NatsServer, hosts: list[Host],
                                            tmp_path: Path) -> None:
    hosts += [Host(cli, nats.url, "host-a"), Host(cli, nats.url, "host-b")]
    for host in hosts:
        host.wait_for("serving queue cpu")
    slow = slow_kernel(tmp_path)
    orchestrator = subprocess.Popen(
        [cli.binary, "eval", "--nats", nats.url, "--task", example("tasks", "relu.py"),
         "--kernel", str(slow), *FAST],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli.env, cwd=cli.tmp)
    deadline = time.monotonic() + 120
    victim = None
    while victim is None and time.monotonic() < deadline:
        victim = next((h for h in hosts if "(delivery 1) started" in h.text()), None)
        time.sleep(0.05)
    assert victim is not None, "no host started the job"
    time.sleep(1.0)  # In the middle of its checks.
    victim.kill()
    survivor = next(h for h in hosts if h is not victim)
    out, err = orchestrator.communicate(timeout=300)
    assert orchestrator.returncode == 0, err
    got = results(out)
    assert len(got) == 1, out  # Finished once.
    assert got[0]["verdict"] == "correct", got[0]
    assert got[0]["worker"] == f"{survivor.name}/cpu"  # Measured by the host that survived.
    assert "(delivery 2) started" in survivor.text()


def test_a_server_restart_mid_batch_loses_and_doubles_nothing(
        cli: Cli, nats: NatsServer, hosts: list[Host], tmp_path: Path) -> None:
    hosts.append(Host(cli, nats.url, "host-a"))
    hosts[0].wait_for("serving queue cpu")
    kernels = sorted(Path(example("kernels", "relu")).glob("*.py")) + [slow_kernel(tmp_path)]
    orchestrator = subprocess.Popen(
        [cli.binary, "eval", "--nats", nats.url, "--task", example("tasks", "relu.py"),
         *[a for k in kernels for a in ("--kernel", str(k))], *FAST],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli.env, cwd=cli.tmp)
    hosts[0].wait_for("(delivery 1) started")
    nats.stop()
    time.sleep(1.5)
    nats.start()
    out, err = orchestrator.communicate(timeout=300)
    assert orchestrator.returncode == 0, err
    got = results(out)
    names = sorted(Path(r["kernel"]).name for r in got)
    assert names == sorted(k.name for k in kernels), out  # Each once: none lost, none doubled.
    by_name = {Path(r["kernel"]).name: r for r in got}
    assert by_name["ok.py"]["verdict"] == "correct"
    assert by_name["slow.py"]["verdict"] == "correct"
    assert by_name["wrong_values.py"]["verdict"] == "incorrect"
    assert all(r["worker"] == "host-a/cpu" for r in got)


def test_no_worker_is_a_clear_error(cli: Cli, nats: NatsServer) -> None:
    p = cli.run("eval", "--nats", nats.url, "--queue", "nvidia-h200", "--task",
                example("tasks", "relu.py"), "--kernel", example("kernels", "relu", "ok.py"),
                "--nats-startup-timeout", "2", *FAST, timeout=120)
    assert p.returncode != 0
    assert "no adaexplore worker of queue 'nvidia-h200' answered" in p.stderr


def test_no_server_is_a_clear_error(cli: Cli) -> None:
    url = f"nats://127.0.0.1:{free_port()}"
    p = cli.run("eval", "--nats", url, "--task", example("tasks", "relu.py"), "--kernel",
                example("kernels", "relu", "ok.py"), *FAST, timeout=120)
    assert p.returncode != 0
    assert f"connecting to {url}" in p.stderr


def test_a_new_best_is_confirmed_on_the_other_host(cli: Cli, nats: NatsServer, hosts: list[Host],
                                                   tmp_path: Path) -> None:
    hosts += [Host(cli, nats.url, "host-a"), Host(cli, nats.url, "host-b")]
    for host in hosts:
        host.wait_for("serving queue cpu")
    db = tmp_path / "run.sqlite"
    with llm_server(cli, Script().handle, "sk-nats-test"):
        p = cli.run("run", "--nats", nats.url, "--task", example("tasks", "relu.py"), "--llm",
                    "openai:scripted", "--steps", "2", "--db", str(db), "--out",
                    str(tmp_path / "out"), "--confirm-best", *FAST, timeout=600)
    assert p.returncode == 0, p.stderr
    with sqlite3.connect(db) as c:
        rows = [json.loads(r) for (r,) in c.execute(
            "SELECT result FROM nodes WHERE verdict = 'correct' ORDER BY node")]
    confirmed = [r["facts"]["measurements"] for r in rows if "measurements" in r["facts"]]
    assert confirmed, rows
    for first, second in confirmed:
        assert first["worker"].split("/")[0] != second["worker"].split("/")[0], (first, second)
