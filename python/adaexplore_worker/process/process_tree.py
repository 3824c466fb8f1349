"""The process trees below the zygote, read from /proc: who is whose child, what a tree holds
in memory, and killing a tree. A child's tree is what the watchdog limits and what dies with
it; trees, not process groups, because a candidate can leave its group.
"""

from __future__ import annotations

import os
import signal

PR_SET_CHILD_SUBREAPER = 36


def prctl(option: int, value: int) -> None:
    """Best effort: where prctl is unavailable, process groups and the C++ side still hold."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(option, value)
    except Exception:  # noqa: BLE001
        pass


def set_subreaper() -> None:
    prctl(PR_SET_CHILD_SUBREAPER, 1)


def processes_now() -> dict[int, tuple[int, int]]:
    """Every process now: pid -> (parent pid, process group), from /proc/<pid>/stat."""
    found: dict[int, tuple[int, int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
            fields = stat[stat.rfind(b")") + 2:].split()  # The name may hold spaces and ")".
            found[int(name)] = (int(fields[1]), int(fields[2]))
        except (OSError, ValueError, IndexError):
            continue
    return found


def tree(root: int, processes: dict[int, tuple[int, int]], spare: frozenset[int] = frozenset()
          ) -> list[int]:
    """`root` and every process below it, except the subtrees of `spare`."""
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in processes.items():
        children.setdefault(parent, []).append(pid)
    found, frontier = [], [root]
    while frontier:
        pid = frontier.pop()
        found.append(pid)
        frontier.extend(p for p in children.get(pid, []) if p not in spare)
    return found


def kill_descendants(root: int, spare: set[int],
                      processes: dict[int, tuple[int, int]] | None = None) -> list[int]:
    """Kills every process below `root` except the subtrees of `spare` (the zygote's live
    children), and reaps those that were its own children. Returns the pids killed."""
    processes = processes_now() if processes is None else processes
    parents = {pid: parent for pid, (parent, _) in processes.items()}
    below = tree(root, processes, frozenset(spare))[1:]
    for pid in below:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    for pid in below:
        if parents.get(pid) == root:
            try:
                os.waitpid(pid, os.WNOHANG)  # One stuck in the driver is reaped on a later sweep.
            except ChildProcessError:
                pass
    return below


def command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()[:120] or "?"
    except OSError:
        return "exited"


def kill_group(pgid: int) -> None:
    """Kills the group `pgid` leads, or the process alone where it has not made its group yet."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        try:
            os.kill(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    except PermissionError:
        pass


def relays(root: int, processes: dict[int, tuple[int, int]]) -> set[int]:
    """The sandbox's relay processes in a child's tree (sandbox.py), when the child made a PID
    namespace for its children: forks of the zygote that share its pages and hold nothing of the
    candidate's. Told by where they stand (NSpid), not by their parents: the child itself and any
    process of the zygote's own namespace (nothing in the sandbox can make one there), and the
    init of the namespace one level below (its pid there is 1). The init of a namespace deeper
    down would be the candidate's own: never a relay."""
    try:
        made = os.readlink(f"/proc/{root}/ns/pid_for_children") != os.readlink(
            "/proc/self/ns/pid")
    except OSError:  # Its namespace's init has ended (the link is gone): the child relays still.
        made = True
    if not made:
        return set()
    ours = len(_namespace_pids("self"))
    found = {root}
    for pid in tree(root, processes):
        theirs = _namespace_pids(str(pid))
        if theirs and (len(theirs) <= ours or (len(theirs) == ours + 1 and theirs[-1] == 1)):
            found.add(pid)
    return found


def sandbox_tmpfs_bytes(relays: set[int]) -> int:
    """What the candidate's files hold in its sandbox's private /tmp and /dev/shm: memory, not
    disk, each as large as the job's limit. Read through its namespace init's root."""
    total = 0
    for pid in relays:
        if _namespace_pids(str(pid))[-1:] == [1]:
            total += private_tmpfs_bytes(f"/proc/{pid}/root")
    return total


def private_tmpfs_bytes(root: str) -> int:
    """The bytes used in `root`'s /tmp and /dev/shm where each is a file system of its own, not
    the zygote's: until the sandbox's init has moved into its new root (mount_view.py), its root
    is the host's, whose /tmp may be the host's disk (tens of GB used)."""
    total = 0
    for folder in ("/tmp", "/dev/shm"):
        try:
            if os.stat(root + folder).st_dev == os.stat(folder).st_dev:
                continue
            st = os.statvfs(root + folder)
        except OSError:
            continue
        total += (st.f_blocks - st.f_bfree) * st.f_frsize
    return total


def _namespace_pids(pid: str) -> list[int]:
    """`NSpid` of /proc/<pid>/status: its pid in each PID namespace, outermost first."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"NSpid:"):
                    return [int(n) for n in line.split()[1:]]
    except (OSError, ValueError):
        pass
    return []


def tree_rss(root: int, processes: dict[int, tuple[int, int]], skip: set[int]) -> int:
    """The memory of `root` and every process below it, but `skip`: each process's proportional
    set size, so a page its processes share counts once over them (resident sizes counted torch's
    libraries once per process: a candidate's worker pool of 8 forks was charged 8 times what it
    held). Pages shared with the zygote count their share. A tree, not a process group: a process
    that leaves the group (setsid, setpgid) is still below the child that started it (each child
    is a subreaper, and inside a sandbox the namespace's init is)."""
    return sum(process_memory(pid) for pid in tree(root, processes) if pid not in skip)


def process_memory(pid: int) -> int:
    """Its proportional set size in bytes (smaps_rollup), or its resident size where the kernel
    gives no rollup; 0 for a process gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
