"""The sandbox, entered in a forked process exactly as a candidate's child enters it, then
attacked from inside the way a hostile kernel would. Runs as root here, and as an unprivileged
user where one can be made (the user-namespace path)."""

from __future__ import annotations

import ctypes
import json
import os
import socket
from pathlib import Path
from typing import Any, Callable

import pytest

from adaexplore_worker.process import job_files
from adaexplore_worker.protocol.channel import read_until_closed
from adaexplore_worker.sandbox import sandbox, sandbox_selftest


def _settings(tmp_path: Path, enabled: bool = True) -> sandbox.Settings:
    return sandbox.Settings(enabled=enabled, readable=job_files.readable_paths())


def _inside(tmp_path: Path, attack: Callable[[], Any], enabled: bool = True) -> dict[str, Any]:
    """Runs `attack` in a sandboxed child (after confine) and returns what it found."""
    scratch = tmp_path / "scratch"
    files = job_files.prepare(str(scratch), "job", "candidate", "task")
    plan = _settings(tmp_path, enabled).plan(files, "", 256)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            box = sandbox.enter(plan, close_in_relays=(write,))
            out = {"facts": box.facts, "found": attack()}
        except BaseException as e:  # noqa: BLE001
            out = {"error": repr(e)}
        os.write(write, json.dumps(out, default=str).encode())
        os._exit(0)
    return _answer(read, write, pid)


def _answer(read: int, write: int, pid: int) -> Any:
    """What the forked child wrote before it exited."""
    os.close(write)
    data = read_until_closed(read, 120)
    os.waitpid(pid, 0)
    return json.loads(data)


def _try(action: Callable[[], Any]) -> str:
    try:
        action()
    except OSError as e:
        return f"refused: {e.strerror}"
    return "done"


def test_the_self_test_finds_every_protection_in_force(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    files = job_files.prepare(str(scratch), "probe", "", "")
    neighbour = scratch / "jobs" / "other" / "secret.txt"
    neighbour.parent.mkdir(parents=True)
    neighbour.write_text("secret")
    plan = _settings(tmp_path).plan(files, "", 0)
    facts = sandbox_selftest.run(plan, os.getpid(), str(neighbour))
    assert [p for p in sandbox.PROTECTIONS if not facts[p]] == [], facts
    assert all(v.startswith("held") for v in facts["verified"].values()), facts["verified"]
    assert facts["landlock_abi"] >= 1 and facts["seccomp_refuses"] > 40


def test_a_candidate_sees_only_its_own_processes_and_no_secrets(tmp_path: Path) -> None:
    os.environ["ADX_TEST_SECRET"] = "hunter2-secret-value"  # In the parent's environment only.
    parent = os.getpid()

    def attack() -> dict[str, Any]:
        pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        leaked = []
        for pid in pids:
            try:
                if b"hunter2" in Path(f"/proc/{pid}/environ").read_bytes():
                    leaked.append(pid)
            except OSError:
                pass
        return {"pids": pids, "leaked": leaked, "me": os.getpid(),
                "kill_parent": _try(lambda: os.kill(parent, 0))}

    found = _inside(tmp_path, attack)["found"]
    assert found["pids"] == [1, 2] and found["me"] == 2
    assert found["leaked"] == []
    # The parent's pid names nothing (or the sandbox's own init) inside the namespace.
    assert parent in (1, 2) or found["kill_parent"].startswith("refused")


def test_a_candidate_has_no_network_and_no_way_to_remount(tmp_path: Path) -> None:
    def attack() -> dict[str, str]:
        libc = ctypes.CDLL(None, use_errno=True)

        def remount() -> None:
            if libc.mount(None, b"/", None, ctypes.c_ulong(32 | 4096), None) != 0:
                raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))

        def connect() -> None:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                s.settimeout(2)
                s.connect(("127.0.0.1", 22))

        return {"inet": connect and _try(connect), "remount": _try(remount),
                "unix": _try(lambda: socket.socket(socket.AF_UNIX).close())}

    found = _inside(tmp_path, attack)["found"]
    assert found["inet"].startswith("refused") and found["remount"].startswith("refused")
    assert found["unix"] == "done"  # What torch and CUDA use among themselves.


def test_writes_land_only_in_the_job_folder_its_cache_and_private_tmp(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    home = Path(os.path.expanduser("~"))

    def attack() -> dict[str, str]:
        job = scratch / "jobs" / "job"
        return {"job": _try(lambda: (job / "ok.txt").write_text("x")),
                "scratch": _try(lambda: (scratch / "escaped").write_text("x")),
                "home": _try(lambda: (home / "adx-escaped").write_text("x")),
                "etc": _try(lambda: Path("/etc/adx-escaped").write_text("x")),
                "shm": _try(lambda: Path("/dev/shm/big").write_bytes(b"x" * (1 << 20))),
                "shm_over_limit": _try(lambda: Path("/dev/shm/huge").write_bytes(
                    b"x" * (300 << 20))),
                "worker_source": _try(lambda: Path(sandbox.__file__).write_text("#")),
                "home_listing": ",".join(os.listdir(home)) if home.exists() else "absent"}

    found = _inside(tmp_path, attack)["found"]
    assert found["job"] == "done" and found["shm"] == "done"
    for place in ("home", "etc", "worker_source", "shm_over_limit"):
        assert found[place].startswith("refused"), (place, found)
    # Below /tmp the scratch folder's path exists only in the candidate's private /tmp: a write
    # there may succeed, and never reaches the host.
    assert not (scratch / "escaped").exists() and not (home / "adx-escaped").exists()
    assert not Path("/dev/shm/big").exists()  # The candidate's /dev/shm was its own.


def test_off_is_said_and_changes_nothing(tmp_path: Path) -> None:
    result = _inside(tmp_path, lambda: os.getpid() != 2, enabled=False)
    assert result["facts"] == {"off": "--no-sandbox"} and result["found"] is True


def _become_unprivileged() -> None:
    """This process as uid 1000 with no capability anywhere: a user namespace that maps 1000 to
    the caller (so the files stay readable), then setuid. The sandbox code then takes the path
    of a user who is not root: a user namespace of its own."""
    libc = ctypes.CDLL(None, use_errno=True)
    outer_uid, outer_gid = os.getuid(), os.getgid()
    if libc.unshare(0x10000000) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUSER)")
    Path("/proc/self/setgroups").write_text("deny")
    Path("/proc/self/uid_map").write_text(f"1000 {outer_uid} 1")
    Path("/proc/self/gid_map").write_text(f"1000 {outer_gid} 1")
    os.setresgid(1000, 1000, 1000)
    os.setresuid(1000, 1000, 1000)


def test_an_unprivileged_user_gets_the_same_sandbox_from_a_user_namespace(tmp_path: Path) -> None:
    """The self-test again as a user with no capabilities: the user namespace gives what root
    has, and every protection is in force and verified."""
    scratch = tmp_path / "scratch"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            _become_unprivileged()
            files = job_files.prepare(str(scratch), "probe", "", "")
            neighbour = scratch / "jobs" / "other" / "secret.txt"
            neighbour.parent.mkdir(parents=True)
            neighbour.write_text("s")
            settings = sandbox.Settings(enabled=True, readable=job_files.readable_paths())
            plan = settings.plan(files, "", 0)
            facts = sandbox_selftest.run(plan, os.getppid(), str(neighbour))
            facts["euid_before"] = os.geteuid()
        except BaseException as e:  # noqa: BLE001
            facts = {"error": repr(e)}
        os.write(write, json.dumps(facts).encode())
        os._exit(0)
    facts = _answer(read, write, pid)
    assert facts.get("euid_before") == 1000 and facts["user_namespace"] is True, facts
    assert [p for p in sandbox.PROTECTIONS if not facts[p]] == [], facts
    assert all(v.startswith("held") for v in facts["verified"].values()), facts["verified"]
