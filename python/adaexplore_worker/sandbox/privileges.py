"""What a candidate's process may still do as a user: no capabilities, no way to gain any
(no_new_privs), and writes only where Landlock allows them.

`drop_capabilities` empties the bounding, ambient, effective, permitted and inheritable sets,
so neither this process nor anything it executes holds a capability (root's uid 0 then owns
files but may not override their permissions, mount, trace or signal across users).
`restrict_writes` adds a Landlock ruleset that refuses every kind of write (writing, truncating,
creating, removing, renaming, linking) outside the given folders; reads are left to the mount
view (mount_view.py). Landlock stacks: a candidate can add rules of its own but never lift ours.

Both raise OSError where the kernel refuses; the caller records what is in force.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
CAP_LAST_FALLBACK = 40  # CAP_CHECKPOINT_RESTORE, where /proc does not say.
LINUX_CAPABILITY_VERSION_3 = 0x20080522
LANDLOCK_CREATE_RULESET = 444  # The same number on every architecture.
LANDLOCK_ADD_RULE = 445
LANDLOCK_RESTRICT_SELF = 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
ACCESS_WRITE_FILE = 1 << 1
ACCESS_TRUNCATE = 1 << 14  # ABI 3.
ACCESS_REFER = 1 << 13  # ABI 2.
# Every kind of write: writing, removing, and making files, folders, devices, pipes, sockets,
# links (REFER and TRUNCATE join where the kernel knows them).
WRITES = ACCESS_WRITE_FILE | sum(1 << bit for bit in range(4, 13))


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1  # The kernel's struct is packed.
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def set_no_new_privs() -> None:
    _check(_libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(NO_NEW_PRIVS)")


def drop_capabilities() -> None:
    libc = _libc()
    for cap in range(_last_cap() + 1):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() != 22:
            _check(-1, f"dropping capability {cap} from the bounding set")
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)  # EINVAL before Linux 4.3.
    header = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(libc.capset(ctypes.byref(header), data), "capset")


def effective_capabilities() -> int:
    """CapEff of this process, from /proc (0: none)."""
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("CapEff:"):
                return int(line.split()[1], 16)
    return -1


THREAD_CHECKS = ("no_capabilities", "no_new_privs", "seccomp")  # What /proc shows per thread.


def thread_states(pid: int, checks: tuple[str, ...] = THREAD_CHECKS) -> dict[str, Any]:
    """Every thread of process `pid` as /proc shows it: {"threads": n, "unconfined": [...]},
    each unconfined one as "pid/tid name: CapEff=..., NoNewPrivs=0, Seccomp=0" (what it lacks
    of `checks`). Landlock's domain is not shown in /proc: it travels with the same
    inheritance as the filter."""
    try:
        tids = sorted(int(t) for t in os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return {"threads": 0, "unconfined": []}
    unconfined = []
    for tid in tids:
        status = _status(f"/proc/{pid}/task/{tid}/status")
        if not status:
            continue  # Ended since the listing.
        lacks = []
        if "no_capabilities" in checks and (int(status.get("CapEff", "0"), 16)
                                            or int(status.get("CapPrm", "0"), 16)):
            lacks.append(f"CapEff={status.get('CapEff')} CapPrm={status.get('CapPrm')}")
        if "no_new_privs" in checks and status.get("NoNewPrivs") != "1":
            lacks.append(f"NoNewPrivs={status.get('NoNewPrivs')}")
        if "seccomp" in checks and status.get("Seccomp") != "2":
            lacks.append(f"Seccomp={status.get('Seccomp')}")
        if lacks:
            unconfined.append(f"{pid}/{tid} {status.get('Name', '?')}: " + ", ".join(lacks))
    return {"threads": len(tids), "unconfined": unconfined}


def _status(path: str) -> dict[str, str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return {k: v.strip() for k, _, v in (line.partition(":") for line in f)}
    except OSError:
        return {}


def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 where it has none (or it is disabled)."""
    libc = _libc()
    version = libc.syscall(LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                           ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
    return max(0, version)


def restrict_writes(writable: list[str]) -> int:
    """Installs the ruleset; returns the Landlock ABI version in force. Needs no_new_privs.
    (The three system calls by hand: the PyPI binding reads errno after successful calls.)"""
    abi = landlock_abi()
    if abi < 1:
        raise OSError(95, "Landlock is not available in this kernel")
    writes = WRITES | (ACCESS_REFER if abi >= 2 else 0) | (ACCESS_TRUNCATE if abi >= 3 else 0)
    libc = _libc()
    attr = _RulesetAttr(writes, 0, 0)
    ruleset = libc.syscall(LANDLOCK_CREATE_RULESET, ctypes.byref(attr),
                           ctypes.c_size_t(ctypes.sizeof(_RulesetAttr)), ctypes.c_uint32(0))
    _check(0 if ruleset >= 0 else -1, "landlock_create_ruleset")
    try:
        for path in writable:
            if not os.path.exists(path):
                continue
            # A file (a device node) is written to, never created or removed.
            allowed = writes if os.path.isdir(path) else writes & (ACCESS_WRITE_FILE
                                                                   | ACCESS_TRUNCATE)
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = _PathBeneath(allowed, fd)
                _check(libc.syscall(LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH,
                                    ctypes.byref(rule), ctypes.c_uint32(0)),
                       f"landlock_add_rule {path}")
            finally:
                os.close(fd)
        _check(libc.syscall(LANDLOCK_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)),
               "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi


def _last_cap() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as f:
            return int(f.read())
    except (OSError, ValueError):
        return CAP_LAST_FALLBACK


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(code: int, what: str) -> None:
    if code != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")
