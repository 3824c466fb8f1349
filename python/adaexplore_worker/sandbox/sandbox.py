"""A sandbox per candidate, made of the kernel's own mechanisms as bubblewrap and nsjail use them.

    zygote --fork--> outer (unshares; relays the exit)
                       --fork--> init, pid 1 of the new PID namespace (builds the mount view,
                                 reaps orphans; its death kills everything in the namespace)
                                   --fork--> evaluator, pid 2 (the harness, then the candidate)

`enter` runs in the zygote's fresh child and returns only in the evaluator. It unshares a user
namespace (only when not root: it gives the capabilities the rest needs), then PID, network,
mount, IPC and UTS namespaces: the candidate sees and signals only its own process tree (not the
worker, not adaexplore, not its neighbours, not the user's shell), has a network with a loopback
and nothing listening, and a file system holding only what the evaluation needs
(mount_view.py).

The evaluator is confined as soon as it exists, while it is the only thread of its process (a
fork copies one thread): the capabilities go, then no_new_privs, Landlock's write rules
(privileges.py) and the seccomp filter (syscall_filter.py). Those are per thread, and a thread
inherits them from the one that creates it, so every thread the process ever has (torch's OpenMP
pool, the CUDA driver's threads and callbacks, the candidate's own) holds them too; confined
later, the threads the task's phases start would stay free. The task's phases run confined as
well: they write only where the candidate may, plus the harness-written paths (FlashInfer's
kernel cache), which `seal` has the namespace's init remount read-only before the candidate is
imported (the evaluator may no longer mount). Nothing the candidate does can lift any of them.

Each protection is tried on its own, so a machine that lacks one (no user namespaces, an old
kernel without Landlock) still gets the others; the returned facts say what is in force and
why not the rest. The worker checks them all from inside at start (sandbox_selftest.py).
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import socket
import struct
from dataclasses import dataclass, field
from typing import Any

from . import mount_view, privileges, syscall_filter

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
SIOCSIFFLAGS = 0x8914
IFF_UP_LOOPBACK_RUNNING = 0x1 | 0x8 | 0x40
DEFAULT_SHM = 2 << 30  # /dev/shm and /tmp of a job without a memory limit.
MIN_SHM = 64 << 20
# The protections a complete sandbox has; the C++ side requires these with --require-sandbox.
PROTECTIONS = ("pid_namespace", "network_namespace", "mount_view", "no_capabilities",
               "no_new_privs", "landlock", "seccomp")


@dataclass
class Plan:
    enabled: bool
    job_dir: str
    root: str  # An empty folder for the mount view's root (outside every bound path).
    writable: list[str]  # The job folder and the candidate's compiler cache.
    readable: list[str]  # The Python installation, the worker's package, the task's data.
    harness_only: list[str] = field(default_factory=list)  # Detached before the candidate.
    frozen: list[str] = field(default_factory=list)  # Writable by the harness, then read-only.
    shm_bytes: int = 1 << 30
    decoy: str = ""  # The self-test's: bound read-write at mount_view.DECOY, never writable.
    # The namespace's whole /proc writable, not only the evaluator's folder: a sanitizer job's
    # (compute-sanitizer's target is a process of its own, and CUDA's start writes its /proc
    # folder). Only with the mount view (the namespace's own procfs); the target narrows it
    # back to its own folder before any candidate code (own_proc_only).
    tool_targets: bool = False


@dataclass
class Settings:
    """The worker's sandbox, as the C++ side set it and the self-test found it."""

    enabled: bool
    required: bool = False
    readable: list[str] = field(default_factory=list)
    frozen: list[str] = field(default_factory=list)  # FlashInfer's kernel cache.
    containment: dict[str, Any] = field(default_factory=dict)  # The self-test's facts.

    def plan(self, files: Any, data_root: str, memory_limit_mb: float,
             tool_targets: bool = False) -> Plan:
        """The sandbox of one job (files: job_files.JobFiles; data_root: the task's data;
        tool_targets: a sanitizer job's, Plan.tool_targets)."""
        readable = list(self.readable)
        if data_root:  # A FlashInfer-Trace dataset: its workloads' blobs, never the folders above.
            readable.append(os.path.join(data_root, "blob"))
        shm = int(memory_limit_mb * (1 << 20)) if memory_limit_mb > 0 else DEFAULT_SHM
        return Plan(enabled=self.enabled, job_dir=files.job_dir, root=files.root,
                    writable=[files.job_dir, files.cache_dir], readable=readable,
                    frozen=list(self.frozen),
                    shm_bytes=max(MIN_SHM, shm), tool_targets=tool_targets)


@dataclass
class Sandbox:
    """What `enter` put in force in this process, and why not the rest."""

    plan: Plan
    facts: dict[str, Any] = field(default_factory=dict)
    seal_fds: tuple[int, int] | None = None  # To the namespace's init: request, answer.

    def record(self, name: str, done: bool, reason: str = "") -> None:
        self.facts[name] = done
        if not done and reason:
            self.facts.setdefault("reasons", {})[name] = reason[:300]

    def missing(self) -> list[str]:
        return [name for name in PROTECTIONS if not self.facts.get(name)]


def warm_up() -> None:
    """Imports libseccomp's binding once in the zygote; children inherit it."""
    try:
        import pyseccomp  # noqa: F401
    except ImportError:
        pass  # confine() reports them missing.


def enter(plan: Plan, close_in_relays: tuple[int, ...] = ()) -> Sandbox:
    """In the zygote's child; returns in the evaluator only (the outer process and the
    namespace's init never return). `close_in_relays`: descriptors only the evaluator keeps."""
    box = Sandbox(plan)
    if not plan.enabled:
        box.facts["off"] = "--no-sandbox"
        return box
    namespaces = _unshare(box)
    if not namespaces:
        _confine(box)  # Still this process's only thread: the zygote's child.
        return box
    status_read, status_write = os.pipe()
    init = os.fork()
    if init != 0:
        _outer(init, status_read, (status_write, *close_in_relays))
    os.close(status_read)
    _die_with_parent(expected_parent=0)  # The outer process, outside the namespace.
    box.record("mount_view", *_build_view(plan))
    _loopback_up()
    sealed = box.facts["mount_view"] and bool(plan.harness_only or plan.frozen)
    seal_request, seal_answer = (_pipe(), _pipe()) if sealed else ((-1, -1), (-1, -1))
    evaluator = os.fork()
    if evaluator != 0:
        _close(seal_request[1], seal_answer[0])
        _init(evaluator, status_write, close_in_relays, plan,
              (seal_request[0], seal_answer[1]) if sealed else None)
    os.close(status_write)
    _close(seal_request[0], seal_answer[1])
    if sealed:
        box.seal_fds = (seal_request[1], seal_answer[0])
    _die_with_parent(expected_parent=1)
    box.facts["pid"] = os.getpid()
    _confine(box)
    return box


def seal(box: Sandbox) -> None:
    """In the evaluator after the task's phases, before any candidate code: the namespace's
    init detaches the harness-only mounts and remounts the harness-written ones read-only."""
    if box.seal_fds is None:
        return
    request, answer = box.seal_fds
    box.seal_fds = None
    try:
        os.write(request, b"s")
        failed = os.read(answer, 4096).decode("utf-8", "replace")
    except OSError as e:
        failed = f"the namespace's init did not answer: {e}"
    finally:
        os.close(request)
        os.close(answer)
    if failed:
        box.record("mount_view", False, "could not detach or freeze " + failed)


def confined_threads() -> dict[str, Any]:
    """Every thread of this process as /proc shows it: how many, and those holding a
    capability, without no_new_privs or without the seccomp filter."""
    return privileges.thread_states(os.getpid())


def _confine(box: Sandbox) -> None:
    """In the evaluator while it is the only thread of its process: what it, and every thread
    and process it will ever start, may do from here on."""
    threads = privileges.thread_states(os.getpid())["threads"]
    if threads != 1:  # Only a bug of ours could start one before this; say so, do not go on.
        for name in ("no_capabilities", "no_new_privs", "landlock", "seccomp"):
            box.record(name, False, f"{threads} threads before confinement; each would stay "
                                    f"unconfined")
        return
    box.record("no_capabilities", *_attempt(privileges.drop_capabilities))
    if box.facts["no_capabilities"] and privileges.effective_capabilities() != 0:
        box.record("no_capabilities", False, "capabilities remain after capset")
    box.record("no_new_privs", *_attempt(privileges.set_no_new_privs))
    # The harness-written paths stay writable in the rules: `seal` makes them read-only mounts.
    writable = [*box.plan.writable, *_scratch_places(box), *box.plan.frozen]
    box.record("landlock", *_attempt(lambda: privileges.restrict_writes(writable), box.facts,
                                     "landlock_abi"))
    box.record("seccomp", *_attempt(lambda: len(syscall_filter.install()), box.facts,
                                    "seccomp_refuses"))


def _scratch_places(box: Sandbox) -> list[str]:
    """Where else the candidate may write: its private /dev and /tmp inside the mount view;
    without one, only the devices a kernel opens for writing and the shared /dev/shm. Either
    way its own process's /proc folder (its threads' names, its own settings): CUDA cannot start
    without a write there, and no other process's is in it. A sanitizer job's evaluator never
    imports the candidate, and the tool's target needs its own folder: there the namespace's
    whole /proc, which the target narrows back (own_proc_only)."""
    own = [os.path.realpath("/proc/self")]  # CUDA's start writes there (H200: else error 304).
    if box.facts.get("mount_view"):
        return ["/dev", "/tmp", *(["/proc"] if box.plan.tool_targets else own)]
    nodes = ["/dev/null", "/dev/zero", "/dev/full", "/dev/shm"]
    nodes += [f"/dev/{n}" for n in os.listdir("/dev") if n.startswith("nvidia")]
    return [*nodes, *own]


def own_proc_only() -> int:
    """In a process whose writes may reach other processes' /proc folders (a sanitizer job's
    tool target, Plan.tool_targets), before any candidate code: a Landlock layer of its own
    that allows every top-level folder but /proc, and of /proc only this process's folder.
    Layers stack, so the evaluator's rules still bound the rest. Returns the ABI, 0 where this
    kernel has no Landlock (then the evaluator had none either)."""
    if privileges.landlock_abi() < 1:
        return 0
    places = [os.path.join("/", name) for name in os.listdir("/") if name != "proc"]
    privileges.set_no_new_privs()
    return privileges.restrict_writes([*places, os.path.realpath("/proc/self")])


def _unshare(box: Sandbox) -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    box.facts["uid"] = os.getuid()
    if os.geteuid() != 0:
        uid, gid = os.getuid(), os.getgid()
        if libc.unshare(CLONE_NEWUSER) != 0:
            box.record("user_namespace", False, _errno_text("unshare(CLONE_NEWUSER)"))
            _record_no_namespaces(box)
            return False
        try:
            _write("/proc/self/setgroups", "deny")
            _write("/proc/self/uid_map", f"{uid} {uid} 1")
            _write("/proc/self/gid_map", f"{gid} {gid} 1")
        except OSError as e:
            box.record("user_namespace", False, f"writing the id maps: {e}")
            _record_no_namespaces(box)
            return False
        box.record("user_namespace", True)
    flags = CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS
    if libc.unshare(flags) != 0:
        _record_no_namespaces(box, _errno_text("unshare(PID, net, mount, IPC, UTS)"))
        return False
    for name in ("pid_namespace", "network_namespace", "ipc_namespace"):
        box.record(name, True)
    return True


def _record_no_namespaces(box: Sandbox, reason: str = "no user namespace") -> None:
    for name in ("pid_namespace", "network_namespace", "mount_view"):
        box.record(name, False, reason)


def _build_view(plan: Plan) -> tuple[bool, str]:
    view = mount_view.View(root=plan.root, writable=plan.writable, readable=plan.readable,
                           harness_only=[*plan.harness_only, *plan.frozen],
                           shm_bytes=plan.shm_bytes, decoy=plan.decoy)
    try:
        mount_view.build(view)
        os.chdir(plan.job_dir)
    except OSError as e:
        return False, str(e)
    return True, ""


def _loopback_up() -> None:
    """A network namespace starts with its loopback down; up, it answers like a machine's with
    nothing listening."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            import fcntl
            fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH", b"lo", IFF_UP_LOOPBACK_RUNNING))
    except OSError:
        pass  # Without it the candidate simply has no network at all.


def _outer(init: int, status_read: int, close: tuple[int, ...]) -> None:
    """Waits for the namespace's init and exits as the evaluator did (the zygote reads the exit
    code or the signal from this process)."""
    for fd in close:
        os.close(fd)
    _, status = os.waitpid(init, 0)
    data = b""
    while chunk := os.read(status_read, 4):
        data += chunk
    if len(data) == 4:
        status = struct.unpack("i", data)[0]
    _exit_like(status)


def _init(evaluator: int, status_write: int, close: tuple[int, ...], plan: Plan,
          seal_fds: tuple[int, int] | None) -> None:
    """Pid 1 of the namespace: reaps every orphan; seals the mount view once when the
    evaluator asks (`seal`); when the evaluator ends, passes its status on and exits, which
    kills whatever is left in the namespace."""
    for fd in close:
        os.close(fd)
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # Its memory is not the candidate's.
    wake_read, wake_write = _pipe()
    os.set_blocking(wake_write, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_write)
    while True:
        _reap_as_init(evaluator, status_write)  # First: a child may have ended already.
        readers = [wake_read] + ([seal_fds[0]] if seal_fds is not None else [])
        ready, _, _ = select.select(readers, [], [])
        if seal_fds is not None and seal_fds[0] in ready:
            _seal_once(plan, seal_fds)
            seal_fds = None
        if wake_read in ready:
            os.read(wake_read, 4096)


def _reap_as_init(evaluator: int, status_write: int) -> None:
    """Reaps every ended child; the evaluator's end is the namespace's."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            os._exit(0)
        if pid == 0:
            return
        if pid == evaluator:
            os.write(status_write, struct.pack("i", status))
            os._exit(0)


def _seal_once(plan: Plan, fds: tuple[int, int]) -> None:
    """Answers the evaluator's one request (an empty answer: all done); the request's end
    closed unasked (the evaluator died) seals nothing. Never listens again."""
    request, answer = fds
    if os.read(request, 1):
        failed = mount_view.detach(plan.harness_only) + mount_view.freeze(plan.frozen)
        try:
            os.write(answer, ", ".join(failed).encode("utf-8", "replace"))
        except OSError:
            pass
    _close(request, answer)


def _close(*fds: int) -> None:
    for fd in fds:
        if fd >= 0:
            os.close(fd)


def _pipe() -> tuple[int, int]:
    return os.pipe2(os.O_CLOEXEC)


def _exit_like(status: int) -> None:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70)


def _die_with_parent(expected_parent: int) -> None:
    """As the parent's pid reads in this namespace: 0 for one outside it. A parent that died
    before the prctl left this process with another one (or, for the init, none to check)."""
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != expected_parent:
        os._exit(71)


def _attempt(action: Any, facts: dict[str, Any] | None = None,
             key: str = "") -> tuple[bool, str]:
    """Whether `action` ran, and why not; its value goes to facts[key] when one is given."""
    try:
        value = action()
    except (OSError, ImportError, RuntimeError, ValueError) as e:
        return False, f"{type(e).__name__}: {e}"
    if facts is not None:
        facts[key] = value
    return True, ""


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as f:
        f.write(text)


def _errno_text(what: str) -> str:
    errno = ctypes.get_errno()
    return f"{what}: {os.strerror(errno)}"
