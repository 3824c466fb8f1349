"""The file system a candidate sees, built the way bubblewrap builds one: a fresh tmpfs root
holding only what the evaluation needs, then pivot_root into it, so nothing else of the machine
exists for the candidate (the user's home, the run database, the caches, other jobs' folders).

Every path keeps its name: system directories and the Python installation are bound read-only
at the same place, the job folder and the candidate's compiler cache read-write. /dev holds only
the ordinary character devices and the GPU's; /dev/shm is a private tmpfs of bounded size that
vanishes with the candidate; /proc is the candidate's own PID namespace's. Harness-only mounts
(the reference cache, FlashInfer's kernel cache) are detached before any candidate code runs
(`detach`).

Runs in the sandbox's init process, inside fresh mount and PID namespaces (sandbox.py); never in
the zygote. Raises OSError naming the mount that failed; the caller reports it.
"""

from __future__ import annotations

import ctypes
import glob
import os
import platform
from collections.abc import Iterable
from dataclasses import dataclass, field

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2
# Flags a remount must keep (the kernel refuses to clear them inside a user namespace); statvfs
# reports them with the same values as mount takes them.
LOCKED_FLAGS = MS_NOSUID | MS_NODEV | MS_NOEXEC | 1024 | 2048 | 4096  # NOATIME, NODIRATIME, RELATIME
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
DEVICES = ("null", "zero", "full", "random", "urandom")  # Never tty: the user's terminal.
GPU_DEVICES = ("nvidia*", "nvidia-caps", "dri")
# Files under /etc no candidate needs and a root-run one could read and print into its errors.
MASKED = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/ssh",
          "/etc/sudoers", "/etc/sudoers.d", "/etc/security/opasswd")
PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs", "driver")
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "ppc64le": 203}
DECOY = "/.landlock-decoy"


@dataclass
class View:
    """What the candidate's root holds; every path absolute, on the host's names."""

    root: str  # An empty directory for the new root, outside every path bound into it.
    writable: list[str]  # The job folder, the candidate's compiler cache.
    readable: list[str]  # The Python installation, the worker's package, the task's data.
    harness_only: list[str] = field(default_factory=list)  # Writable until `detach`.
    shm_bytes: int = 1 << 30
    decoy: str = ""  # A folder bound read-write at DECOY (the sandbox's self-test).


def build(view: View) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    _mount(libc, None, "/", None, MS_REC | MS_PRIVATE)  # Nothing below propagates to the host.
    os.makedirs(view.root, exist_ok=True)
    _mount(libc, "tmpfs", view.root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")
    # The tmpfs folders first: a job folder may lie below /tmp or /dev/shm and is bound on them.
    tmp = os.path.join(view.root, "tmp")
    os.makedirs(tmp)
    _mount(libc, "tmpfs", tmp, "tmpfs", MS_NOSUID | MS_NODEV, f"mode=1777,size={view.shm_bytes}")
    _devices(libc, view)
    for path in _existing(SYSTEM_PATHS):
        _bind(libc, view.root, path, read_only=True)
    for path in _outermost(_existing(view.readable)):
        _bind(libc, view.root, path, read_only=True)
    for path in _existing([*view.writable, *view.harness_only]):
        _bind(libc, view.root, path, read_only=False)
    if view.decoy:
        os.makedirs(view.root + DECOY)
        _mount(libc, view.decoy, view.root + DECOY, None, MS_BIND)
    _bind(libc, view.root, "/sys", read_only=True)
    for path in _existing(MASKED):
        _mask(libc, view.root, path)
    _proc(libc, view.root)
    _pivot(libc, view.root)


def detach(paths: Iterable[str]) -> list[str]:
    """Unmounts the harness-only paths; returns those that could not be (already gone is fine)."""
    libc = ctypes.CDLL(None, use_errno=True)
    failed = []
    for path in paths:
        if libc.umount2(os.fsencode(os.path.realpath(path)), MNT_DETACH) != 0 and ctypes.get_errno() not in (22, 2):
            failed.append(path)
    return failed


def freeze(paths: Iterable[str]) -> list[str]:
    """Remounts harness-written paths read-only (FlashInfer's kernels, compiled by the harness
    and loaded again while timing); returns those that could not be."""
    libc = ctypes.CDLL(None, use_errno=True)
    failed = []
    for path in _existing(paths):
        real = os.path.realpath(path)
        try:
            _remount_read_only(libc, real, os.statvfs(real).f_flag)
        except OSError:
            failed.append(path)
    return failed


def _existing(paths: Iterable[str]) -> list[str]:
    return [p for p in paths if p and os.path.lexists(p)]


def _outermost(paths: list[str]) -> list[str]:
    """Real paths without those inside another (bound once, with what is below it)."""
    real = sorted({os.path.realpath(p) for p in paths if os.path.isdir(p) or os.path.isfile(p)})
    out: list[str] = []
    for path in real:
        if path == "/" or any(path == o or path.startswith(o.rstrip("/") + "/") for o in out):
            continue
        out.append(path)
    return out


def _bind(libc: ctypes.CDLL, root: str, path: str, read_only: bool) -> None:
    target = root + path
    if os.path.islink(path) and not os.path.exists(target):  # /bin -> usr/bin on merged /usr.
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.symlink(os.readlink(path), target)
        return
    source = os.path.realpath(path)
    target = root + source
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.exists(target):
            open(target, "wb").close()  # noqa: SIM115 - a mount point.
    _mount(libc, source, target, None, MS_BIND | MS_REC)
    if read_only:
        _remount_read_only(libc, target, os.statvfs(source).f_flag)


def _remount_read_only(libc: ctypes.CDLL, target: str, flags: int) -> None:
    """The bind and every mount below it (a bind remount is not recursive)."""
    below = [p for p in _mount_points() if p == target or p.startswith(target.rstrip("/") + "/")]
    for point in sorted(set(below) | {target}):
        try:
            kept = (os.statvfs(point).f_flag if point != target else flags) & LOCKED_FLAGS
            _mount(libc, None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept)
        except OSError:
            if point == target:
                raise
            # A submount we may not touch (locked in a user namespace): the write rules
            # (Landlock) still refuse writes there.


def _mask(libc: ctypes.CDLL, root: str, path: str) -> None:
    target = root + os.path.realpath(path)
    if not os.path.exists(target):
        return
    if os.path.isdir(target):
        _mount(libc, "tmpfs", target, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4k")
    else:
        _mount(libc, "/dev/null", target, None, MS_BIND)


def _devices(libc: ctypes.CDLL, view: View) -> None:
    dev = os.path.join(view.root, "dev")
    os.makedirs(dev, exist_ok=True)
    _mount(libc, "tmpfs", dev, "tmpfs", MS_NOSUID, "mode=0755")
    nodes = [f"/dev/{name}" for name in DEVICES]
    for pattern in GPU_DEVICES:
        nodes.extend(glob.glob(f"/dev/{pattern}"))
    for node in _existing(nodes):
        target = view.root + node
        if os.path.isdir(node):
            os.makedirs(target, exist_ok=True)
        else:
            open(target, "wb").close()  # noqa: SIM115 - a mount point.
        _mount(libc, node, target, None, MS_BIND | MS_REC)
    for name, to in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                     ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(to, os.path.join(dev, name))
    shm = os.path.join(dev, "shm")
    os.makedirs(shm)
    _mount(libc, "tmpfs", shm, "tmpfs", MS_NOSUID | MS_NODEV,
           f"mode=1777,size={view.shm_bytes}")


def _proc(libc: ctypes.CDLL, root: str) -> None:
    proc = os.path.join(root, "proc")
    os.makedirs(proc, exist_ok=True)
    _mount(libc, "proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for name in PROC_READ_ONLY:
        path = os.path.join(proc, name)
        if os.path.exists(path):
            try:
                _mount(libc, path, path, None, MS_BIND | MS_REC)
                _mount(libc, None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY
                       | (os.statvfs(path).f_flag & LOCKED_FLAGS))
            except OSError:
                pass  # Best effort, as in container runtimes: the write rules refuse writes.


def _pivot(libc: ctypes.CDLL, root: str) -> None:
    number = PIVOT_ROOT.get(platform.machine())
    if number is None:
        raise OSError(38, f"pivot_root: no syscall number known for {platform.machine()}")
    old = os.path.join(root, ".old-root")
    os.makedirs(old, exist_ok=True)
    if libc.syscall(number, os.fsencode(root), os.fsencode(old)) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"pivot_root: {os.strerror(errno)}")
    os.chdir("/")
    if libc.umount2(b"/.old-root", MNT_DETACH) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"unmounting the old root: {os.strerror(errno)}")
    os.rmdir("/.old-root")
    # The root's own tmpfs too: only the bound folders (and Landlock's rules) decide writes.
    _mount(libc, None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _mount_points() -> list[str]:
    out = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
        for line in f:
            point = line.split()[4]
            out.append(point.encode().decode("unicode_escape") if "\\" in point else point)
    return out


def _mount(libc: ctypes.CDLL, source: str | None, target: str, fstype: str | None, flags: int,
           data: str | None = None) -> None:
    def encode(text: str | None) -> bytes | None:
        return None if text is None else os.fsencode(text)
    if libc.mount(encode(source), encode(target), encode(fstype), ctypes.c_ulong(flags),
                  encode(data)) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"mount {target}: {os.strerror(errno)}")
