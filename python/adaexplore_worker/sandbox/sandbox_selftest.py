"""The sandbox checked from inside at worker start: a throwaway child enters it exactly as a
candidate's process does (sandbox.enter, which confines it) and tries what a hostile kernel
would: open an internet socket, look for a network interface besides its loopback, remount the
root read-write, start a user namespace, trace a process, read the worker's environment through
/proc, write outside its job folder, read a neighbour's job folder. Each attempt that fails as
it should is a protection verified in force.

The facts (`containment` in every result and in the hello) list each protection, whether it is
in force, why not where it is not, and what the attempts found. The C++ side decides whether
that is enough (--require-sandbox).
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import shutil
import socket
from typing import Any

from .. import probe
from . import mount_view, sandbox

TIMEOUT_SECONDS = 60
PTRACE_TRACEME = 0


def run(plan: sandbox.Plan, worker_pid: int, neighbour: str) -> dict[str, Any]:
    """`neighbour`: a file in another job's folder the probe must not see."""
    decoy = os.path.join(os.path.dirname(os.path.dirname(plan.job_dir)), "selftest-decoy")
    os.makedirs(decoy, exist_ok=True)
    # Bound read-write at mount_view.DECOY, never among Landlock's folders: only Landlock
    # refuses a write there.
    plan = dataclasses.replace(plan, decoy=decoy)

    def answer(write_end: int) -> dict[str, Any]:
        box = sandbox.enter(plan, close_in_relays=(write_end,))
        return {**box.facts, "verified": _attempts(plan, worker_pid, neighbour)}

    facts = probe.in_child(answer, TIMEOUT_SECONDS, "the sandbox self-test")
    shutil.rmtree(decoy, ignore_errors=True)
    shutil.rmtree(plan.root, ignore_errors=True)
    escaped = os.path.exists(_escape_path(plan))  # Inside, a private folder may have taken it.
    if escaped:
        facts.setdefault("verified", {})["write_outside"] = "failed (the file is on the host)"
        os.unlink(_escape_path(plan))
    elif "verified" in facts:
        facts["verified"]["write_outside"] = "held (nothing reached the host)"
    return _summarise(facts)


def _attempts(plan: sandbox.Plan, worker_pid: int, neighbour: str) -> dict[str, str]:
    libc = ctypes.CDLL(None, use_errno=True)
    out: dict[str, str] = {}

    def refused(name: str, action: Any) -> None:
        try:
            result = action()
        except OSError as e:
            out[name] = f"held ({e.strerror or e})"
            return
        out[name] = "failed" if result is None or result is True else f"failed ({result})"

    def syscall_refused(code: int, what: str) -> bool | str:
        if code == 0:
            return True
        return _raise(ctypes.get_errno(), what)

    refused("internet_socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close())
    # The namespace's own: a network with its loopback alone, whatever the filter allows.
    refused("other_interfaces", lambda: _only_loopback(socket.if_nameindex()))
    refused("remount", lambda: syscall_refused(
        libc.mount(None, b"/", None, ctypes.c_ulong(32 | 4096), None), "mount"))
    refused("user_namespace", lambda: syscall_refused(libc.unshare(0x10000000), "unshare"))
    refused("ptrace", lambda: syscall_refused(libc.ptrace(PTRACE_TRACEME, 0, None, None),
                                              "ptrace"))
    refused("worker_environment", lambda: _read(f"/proc/{worker_pid}/environ", b"PYTHONPATH"))
    refused("write_outside", lambda: _write(_escape_path(plan)))
    # Writable as far as the mounts go, but not among Landlock's folders: refused only if
    # Landlock is in force.
    refused("write_unlisted", lambda: _write(os.path.join(mount_view.DECOY, "x")))
    refused("write_system", lambda: _write("/etc/adaexplore-escaped"))
    refused("neighbour_folder", lambda: _read(neighbour, b""))
    out["own_pid"] = "held" if os.getpid() == 2 else f"failed (pid {os.getpid()})"
    return out


def _only_loopback(interfaces: list[tuple[int, str]]) -> bool | str:
    names = sorted(name for _, name in interfaces)
    if names == ["lo"]:
        raise OSError(0, "its loopback is its only interface")
    return ", ".join(names)


def _read(path: str, must_hold: bytes) -> bool | str:
    with open(path, "rb") as f:
        data = f.read()
    return must_hold in data or "read"


def _escape_path(plan: sandbox.Plan) -> str:
    return os.path.join(os.path.dirname(os.path.dirname(plan.job_dir)), "escaped-selftest")


def _write(path: str) -> bool:
    with open(path, "w", encoding="ascii") as f:
        f.write("x")
    os.unlink(path)
    return True


def _raise(errno: int, what: str) -> bool:
    raise OSError(errno, os.strerror(errno), what)


def _summarise(facts: dict[str, Any]) -> dict[str, Any]:
    """A protection counts only if it was put in force and the attempts against it held."""
    verified = facts.get("verified", {})
    against = {"network_namespace": ["other_interfaces"],
               "seccomp": ["internet_socket", "remount", "user_namespace", "ptrace"],
               "pid_namespace": ["worker_environment", "own_pid"],
               "mount_view": ["neighbour_folder"], "landlock": ["write_unlisted", "write_outside", "write_system"]}
    for protection, checks in against.items():
        broken = [c for c in checks if not str(verified.get(c, "")).startswith("held")]
        if facts.get(protection) and broken:
            facts[protection] = False
            facts.setdefault("reasons", {})[protection] = "in force but not holding: " + \
                ", ".join(f"{c} {verified.get(c, 'not tried')}" for c in broken)
    for name in sandbox.PROTECTIONS:
        facts.setdefault(name, False)
    return facts
