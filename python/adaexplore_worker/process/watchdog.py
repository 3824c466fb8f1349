"""The zygote's watchdog over its children's process trees, read from /proc (process_tree.py)
every MEMORY_POLL_SECONDS: it kills whatever an evaluation child that died left behind (the zygote
is a subreaper), sweeps the threads of each child's tree for the confinement the sandbox's
self-test found in force (sandbox/privileges.py), and holds each child's memory (its tree, its
sandbox's tmpfs, its outputs file) to its limit. A child it finds at fault is killed through
`kill`, as the zygote kills one; the time limits are the zygote's own (zygote.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection

from ..correctness import judge
from ..protocol.facts import TASK_PHASES
from ..sandbox import privileges, sandbox
from . import process_tree
from .child_state import Child
from .process_tree import kill_descendants

MEMORY_POLL_SECONDS = 0.5


class Watchdog:
    def __init__(self, sandboxing: sandbox.Settings, slots: int, ahead: int,
                 kill: Callable[[Child, str], None], log: Callable[[str], None]) -> None:
        self.sandboxing = sandboxing
        self.slots = slots
        self.ahead = ahead
        self.kill = kill
        self.log = log
        self.next_poll = 0.0
        self.tree_of: dict[int, int] = {}  # At the last sweep: pid -> the child whose tree it is in.

    def sweep(self, children: Collection[Child], spared: set[int], now: float) -> None:
        """Every MEMORY_POLL_SECONDS: kills the processes below the zygote outside every child's
        tree but `spared` (the children and the judges), then checks each child's threads and
        memory."""
        if now < self.next_poll:
            return
        self.next_poll = now + MEMORY_POLL_SECONDS
        processes = process_tree.processes_now()
        for pid in kill_descendants(os.getpid(), spared, processes):
            self.log(f"killed process {pid}, left by an evaluation child that died")
        self.tree_of = {pid: child.pid for child in children
                        for pid in process_tree.tree(child.pid, processes)}
        for child in children:
            if child.killed_for is not None:
                continue
            relays = process_tree.relays(child.pid, processes)
            if not child.results:  # Its last sweep was at its result; its relays end after it.
                self.check_threads(child, processes, relays)
            if child.killed_for is not None:
                continue
            rss = (process_tree.tree_rss(child.pid, processes, relays)
                   + process_tree.sandbox_tmpfs_bytes(relays)
                   + judge.used_bytes(child.outputs_fd))
            child.peak_rss = max(child.peak_rss, rss)
            if child.memory_limit_bytes and rss > self.memory_limit(child):
                self.kill(child, "memory")

    def check_threads(self, child: Child, processes: dict[int, tuple[int, int]],
                      relays: set[int]) -> None:
        """Every thread of every process of the child's tree but the sandbox's relays, once
        its evaluator is confined (it says a first phase only after): each must hold what the
        self-test found in force. Read from outside, so the candidate cannot answer for them;
        one that does not is the harness's failure, and the evaluation stops."""
        checks = tuple(c for c in privileges.THREAD_CHECKS if self.sandboxing.containment.get(c))
        if not self.sandboxing.enabled or not checks or child.phase == "starting":
            return
        record = child.threads_checked
        record["sweeps"] += 1
        for pid in process_tree.tree(child.pid, processes):
            if pid in relays:
                continue
            states = privileges.thread_states(pid, checks)
            record["threads_max"] = max(record["threads_max"], states["threads"])
            record["unconfined"].extend(states["unconfined"][:8])
        if record["unconfined"]:
            self.log(f"job {child.job_id}: threads without their confinement: "
                     + "; ".join(record["unconfined"][:4]))
            self.kill(child, "unconfined")

    def memory_limit(self, child: Child) -> int:
        """The job's limit is a share of the worker's memory among its children at once. The
        task's own phases may use the whole of it: what a task needs to make its references must
        not depend on how many other candidates run (a task that needs more is the task's
        problem, task_error on the C++ side, at any slot count)."""
        if child.phase in TASK_PHASES:
            return child.memory_limit_bytes * (self.slots + self.ahead)
        return child.memory_limit_bytes
