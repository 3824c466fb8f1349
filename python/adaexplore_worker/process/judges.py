"""The judges of ended children (correctness/judge.py). Once a child that ran its trials has
ended, the zygote forks its judge, which compares the child's outputs with the sealed references in
a process that never ran candidate code and writes its facts on a pipe. The child's result goes out
with the judge's facts once the judge closes the pipe, or with why there are none: the judge did
not finish within JUDGE_SECONDS more than the job's limit, or the zygote stopped.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from typing import Any

from ..correctness import judge
from . import child_process
from .child_state import Child


class Judges:
    """The judges running now, by the pipe each writes its facts on. `send` sends a result to the
    controller (the zygote's own)."""

    def __init__(self, threads: int, send: Callable[[dict[str, Any]], None]) -> None:
        self.pending: dict[int, judge.Pending] = {}  # By the pipe its judge writes its facts on.
        self.threads = threads  # Host threads of each judge.
        self._send = send

    def start(self, child: Child, facts: dict[str, Any]) -> None:
        """Forks the judge of an ended child: its result (`facts`, with the judge's) goes out
        when the judge has compared the outputs. The child's slot, lock and files are free
        already."""
        read, write = os.pipe()
        criterion, atol, rtol = child.tolerance
        pid = os.fork()
        if pid == 0:  # The judge: never returns.
            os.close(read)
            child_process.enter_judge({0, 1, 2, write, child.outputs_fd, child.references_fd})
            judge.run(child.references_fd, child.outputs_fd, criterion, atol, rtol, write,
                      self.threads)
        os.close(write)
        os.set_blocking(read, False)
        self.pending[read] = judge.Pending(
            job_id=child.job_id, facts=facts, pid=pid,
            deadline=time.monotonic() + judge.JUDGE_SECONDS + child.budget_s)

    def read(self, fd: int) -> None:
        """Reads what the judge writing on `fd` wrote so far; ends it once it closed the pipe."""
        pending = self.pending[fd]
        try:
            data = os.read(fd, 1 << 20)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            pending.data += data
            return
        self.end(fd, None)

    def end_late(self) -> None:
        """Ends every judge past its deadline, its result saying so."""
        now = time.monotonic()
        for fd, pending in list(self.pending.items()):
            if now > pending.deadline:
                self.end(fd, f"the judge did not finish within "
                             f"{judge.JUDGE_SECONDS:g} s more than the job's limit")

    def end(self, fd: int, failure: str | None) -> None:
        """Kills and reaps the judge writing on `fd` and sends its child's result with the
        judge's facts, or with `failure` (why there are none)."""
        pending = self.pending.pop(fd)
        os.close(fd)
        try:
            os.kill(pending.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(pending.pid, 0)
        except ChildProcessError:
            pass
        pending.facts["judge"] = judge.facts_of(pending.data, failure)
        self._send({"type": "result", "id": pending.job_id, "facts": pending.facts})
