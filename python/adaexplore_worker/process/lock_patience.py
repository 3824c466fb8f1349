"""The lock patience: a check that keeps a waiting timing from the GPU is paused, so that a
candidate that hangs in its check (or a very slow one) costs its own slot, not the others'
timings (docs/harness.md, "Isolation and limits").

A check (the GPU lock held shared, out of the task's own phases) that has held the lock for the
patience while a timing has waited as long is stopped with SIGSTOP, and at once by every later
timing. On a CPU it leaves the lock's holders then; on a GPU only once the driver (NVML) has
shown none of its processes' kernels running for DRAIN_QUIET_SECONDS, since kernels it queued
before it stopped still run. One whose kernels still run after twice the patience keeps the GPU
busy on its own (a kernel that spins): it is stopped for good, a timeout that says so. Where NVML
cannot say, nothing is paused on a GPU. A paused child goes on (SIGCONT) and holds the lock
shared again once no timing holds it or waits for it (gpu_lock.py). The zygote's loop is its
only user.
"""

from __future__ import annotations

import os
import signal
import time
from typing import TYPE_CHECKING, Callable

from ..protocol.facts import TASK_PHASES
from ..timing import gpu_activity
from . import process_tree
from .gpu_lock import GpuLock

if TYPE_CHECKING:
    from .child_state import Child

DRAIN_QUIET_SECONDS = 1.0  # A paused child's kernels have ended once NVML shows none this long.


class LockPatience:
    def __init__(self, lock: GpuLock, device: str, patience_s: float, gpu_uuid: str,
                 resumed: Callable[[Child], None], kill: Callable[[Child, str], None],
                 log: Callable[[str], None]) -> None:
        """`patience_s` 0: never pause. `resumed` credits a child's pause as it goes on; `kill`
        stops one for good."""
        self.lock, self.device, self.patience_s = lock, device, patience_s
        self.resumed, self.kill, self.log = resumed, kill, log
        # Which processes' kernels run on the GPU: a paused check must have none running before
        # a timing goes. None on a CPU, or where NVML cannot say.
        self.activity = (gpu_activity.GpuActivity.open(gpu_uuid)
                         if device == "cuda" and gpu_uuid and patience_s > 0 else None)
        if device == "cuda" and patience_s > 0 and self.activity is None:
            log("NVML's per-process utilisation cannot be read: checks are never paused")

    def step(self, children: dict[str, Child]) -> bool:
        """One turn of the zygote's loop: pauses the checks that keep a waiting timing from the
        GPU, drains those paused, resumes them when nobody waits. True when the lock's holders
        changed (the zygote grants then)."""
        writer = self.lock.writer_waiting() if self.patience_s > 0 else None
        waiter = children.get(writer) if writer is not None else None
        if (waiter is None or waiter.asked_lock is None
                or (self.device == "cuda" and self.activity is None)):
            for job_id in sorted(self.lock.shared):  # Paused, draining, and nobody waits now.
                child = children.get(job_id)
                if child is not None and child.paused and child.killed_for is None:
                    self.resume(child)
            return False
        now = time.monotonic()
        writer_waited = now - waiter.asked_lock
        changed = False
        for job_id in sorted(self.lock.shared):
            child = children.get(job_id)
            if child is None or child.killed_for is not None:
                continue
            if child.paused:
                changed = self.drain(child, now) or changed
                continue
            if child.shared_since is None or child.phase in TASK_PHASES:
                continue  # The task's own work is never paused.
            held = now - child.shared_since
            if child.pauses or (held >= self.patience_s
                                and writer_waited >= self.patience_s):
                self.pause(child)
                changed = self.drain(child, now) or changed
        return changed

    def pause(self, child: Child) -> None:
        try:
            os.killpg(child.pid, signal.SIGSTOP)
        except (ProcessLookupError, PermissionError):
            return
        now = time.monotonic()
        child.paused, child.shared_since = True, None
        child.pauses += 1
        child.wait_since = child.drain_since = child.last_busy = now  # Credited like a wait.
        child.drain_from_us = int(time.time() * 1e6)
        self.log(f"paused job {child.job_id} (its check held the GPU past the lock patience "
                 f"while a timing waited)")

    def drain(self, child: Child, now: float) -> bool:
        """Whether the paused child left the lock's holders (or was stopped for good) now."""
        if self.activity is not None:
            busy = self.activity.busy_pids(child.drain_from_us)
            if busy is None:  # NVML failed: it cannot be told whether its kernels run.
                self.resume(child)  # Still a holder: the timing waits for it, as before.
                self.activity = None
                self.log("NVML stopped answering: checks are no longer paused")
                return False
            ours = busy and busy & set(process_tree.tree(child.pid, process_tree.processes_now()))
            if ours:
                child.last_busy = now
                child.drain_from_us = int(time.time() * 1e6)
            if now - child.last_busy < DRAIN_QUIET_SECONDS:
                if now - child.drain_since > 2 * self.patience_s:
                    child.gpu_busy_s = now - child.drain_since
                    self.kill(child, "gpu_busy")
                    return True
                return False
        self.lock.pause(child.job_id)
        return True

    def resume(self, child: Child) -> None:
        self.resumed(child)
        child.paused, child.shared_since = False, time.monotonic()
        try:
            os.killpg(child.pid, signal.SIGCONT)
        except (ProcessLookupError, PermissionError):
            pass

