"""The long-lived worker process ("zygote"): imports torch and triton once, never touches CUDA,
and forks a fresh child per candidate. A kernel that corrupts its CUDA context, segfaults, loops
forever or eats memory only ever takes its own child down.

Protocol with the C++ side (JSON lines on --fd, see docs/protocol.md):

    zygote                                 C++
      | ---- hello {protocol, device...} --> |
      | <--- eval {id, nonce, task, ...} --- |   (up to `slots` + `ahead` at a time)
      | ---- started {id, pid} ------------> |
      | ---- progress {id, phase} ---------> |   (zero or more)
      | ---- result {id, facts} -----------> |   (exactly one per eval)
      | <--- cancel {id} / shutdown -------- |

Each child is the leader of its own process group; a timeout or the memory watchdog (watchdog.py)
kills the whole group. A process that leaves the group (setsid, a double fork) is still contained:
each child is a subreaper and kills every process left below it before it reports (the facts' notes
say so), and the zygote is one too and kills whatever is reparented to it after a child died
(watchdog.py). Children share the device through a reader-writer lock the zygote arbitrates: loading
and correctness runs take it shared, timing takes it exclusively, so a timed run never shares the
GPU with another child's work. A check that holds the lock shared for longer than the lock patience
while a timing has waited as long (a candidate that hangs in its check, or a very slow one) is
paused with SIGSTOP until no timing waits, and at once by every later timing: it costs its own slot,
not the others' timings. The pause does not count against its limit (at most its limit again, so a
hung one still ends).

Up to `ahead` children beyond the `slots` run the task's phases (CUDA start-up, the task, its
reference outputs) while the slots are taken, then wait for one (`ready`, `go`): a candidate
whose slot frees starts with its references made. Waiting for a slot, like waiting for the lock,
does not count against the candidate's limit. A child that ran its trials is judged once it
ended (judges.py): its result goes out with the judge's facts.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time
from collections import deque
from typing import Any

from ..correctness import judge, refcache
from ..evaluation import errors, load
from ..integrity import integrity
from ..protocol.channel import Channel, ChannelClosed
from ..protocol.decode import ProtocolError
from ..protocol.facts import TASK_PHASES, Status
from ..protocol.job import Job
from ..sandbox import sandbox
from ..timing import clocks
from . import child_facts, child_process, job_files, process_tree
from .child_state import Child
from .gpu_lock import GpuLock
from .judges import Judges
from .lock_patience import LockPatience
from .process_tree import kill_descendants, kill_group
from .watchdog import Watchdog

TICK_SECONDS = 0.25
WAIT_NOTICE_SECONDS = 5.0  # How often a long wait for the GPU lock moves the caller's deadline.
# Signals someone can send to stop the zygote. They are blocked in the zygote and read with their
# sender (sigtimedwait), so a stop is blamed on whoever sent it: the controller, a candidate's
# process tree, or something else on the machine. SIGKILL cannot be read; the C++ side then
# blames the candidate only if its worker dies under it again when it runs alone.
STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1,
                signal.SIGUSR2}


class Zygote:
    def __init__(self, channel: Channel, device: str, scratch: str, slots: int,
                 reference_cache_mb: float = 0, ahead: int = 0,
                 sandboxing: sandbox.Settings | None = None,
                 lock_patience_s: float = 0, gpu_uuid: str = "", judge_threads: int = 4) -> None:
        self.channel = channel
        self.sandboxing = sandboxing or sandbox.Settings(enabled=False)
        self.references = refcache.ReferenceCache(int(reference_cache_mb * (1 << 20)))
        self.device = device
        self.scratch = scratch
        self.slots = slots
        self.ahead = ahead
        self.children: dict[str, Child] = {}
        self.slot_queue: deque[str] = deque()  # Children ready for a slot, in order.
        self.waiting: deque[dict[str, Any]] = deque()
        self.lock = GpuLock()
        self.patience = LockPatience(self.lock, device, lock_patience_s, gpu_uuid,
                                     resumed=self._resumed, kill=self._kill, log=_log)
        self.clocks = clocks.GpuState.open(gpu_uuid) if device == "cuda" else None
        self.shutting_down = False
        self.queue_notice = time.monotonic()  # When the jobs not yet forked were last noted.
        self.judges = Judges(judge_threads, self._send)
        self.watchdog = Watchdog(self.sandboxing, slots, ahead, kill=self._kill, log=_log)
        process_tree.set_subreaper()
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)  # Unblocked in each child.

    # -- the loop ---------------------------------------------------------------------------------

    def run(self) -> None:
        try:
            self._loop()
        finally:  # Nothing a candidate started outlives the worker that ran it.
            kill_descendants(os.getpid(), set())

    def _loop(self) -> None:
        while not (self.shutting_down and not self.children and not self.judges.pending):
            self._start_waiting()
            readers = [c.channel.fd for c in self.children.values() if c.open]
            readers.extend(self.judges.pending)
            if not self.shutting_down:
                readers.append(self.channel.fd)
            readable, _, _ = select.select(readers, [], [], self._timeout())
            for fd in readable:
                if fd == self.channel.fd:
                    self._on_controller()
                elif fd in self.judges.pending:
                    self.judges.read(fd)
                else:
                    self._on_child(fd)
            self.judges.end_late()
            self._reap()
            self._enforce_limits()
            if self.patience.step(self.children):
                self._grant()
            self._on_stop_signals()

    def _timeout(self) -> float:
        now = time.monotonic()
        deadlines = [c.deadline - now for c in self.children.values() if c.killed_for is None]
        deadlines += [j.deadline - now for j in self.judges.pending.values()]
        return max(0.0, min([TICK_SECONDS, *deadlines]))

    def _on_controller(self) -> None:
        try:
            messages = self.channel.read_available()
        except ChannelClosed:
            self._kill_all("controller closed the connection")
            self.shutting_down = True
            self.waiting.clear()
            return
        for message in messages:
            if not isinstance(message, dict):
                _log(f"ignoring a malformed line from the controller: {message[:200]!r}")
                continue
            kind = message.get("type")
            if kind == "eval":
                self.waiting.append(message)
            elif kind == "cancel":
                self._cancel(str(message.get("id")))
            elif kind == "shutdown":
                self._kill_all("shutdown")
                self.shutting_down = True
                self.waiting.clear()
            else:
                _log(f"ignoring an unknown message type {kind!r}")

    def _cancel(self, job_id: str) -> None:
        self.waiting = deque(j for j in self.waiting if str(j.get("id")) != job_id)
        child = self.children.get(job_id)
        if child is not None and child.killed_for is None:
            self._kill(child, "cancelled")

    def _on_child(self, fd: int) -> None:
        child = next(c for c in self.children.values() if c.channel.fd == fd)
        try:
            messages = child.channel.read_available()
        except ChannelClosed:
            child.open = False
            return
        for message in messages:
            if not isinstance(message, dict):
                child.stray_lines += 1
                continue
            kind = message.get("type")
            if kind == "acquire" and self.lock.involved(child.job_id):
                # The harness asks once, holding nothing: a second request (held or waiting)
                # would make the child wait on itself, its wait credited to its limit forever.
                child.stray_lines += 1
            elif kind == "acquire":
                child.wait_since = child.asked_lock = time.monotonic()
                self.lock.request(child.job_id, "exclusive" if message.get("mode") == "exclusive"
                                  else "shared")
                self._grant()
            elif kind == "clocks":  # Its timed runs begin (under the exclusive lock).
                # Read once: a candidate repeating the message cannot keep the zygote busy.
                if (self.clocks is not None and self.lock.exclusive == child.job_id
                        and child.gpu_before is None):
                    child.gpu_before = self.clocks.read()
            elif kind == "release":
                if self.clocks is not None and self.lock.exclusive == child.job_id:
                    child.gpu_after = self.clocks.read()
                self.lock.release(child.job_id)
                child.shared_since = None
                self._grant()
            elif (kind == "ready" and child.phase == "reference" and not child.holds_slot
                  and child.job_id not in self.slot_queue):
                # Before the candidate is imported, as for "references" below.
                child.wait_since = time.monotonic()
                self.slot_queue.append(child.job_id)
                self._grant_slots()
            elif kind == "phase" and (child.phase not in TASK_PHASES
                                      and str(message.get("phase")) in TASK_PHASES):
                # Phases only move forward: once the task's are over (its limit restarted once,
                # its memory share back to a child's), only candidate code could go back.
                child.stray_lines += 1
            elif kind == "phase":
                before, child.phase = child.phase, str(message.get("phase"))[:64]
                if before == "reference":
                    self.references.forget(child.job_id)  # Made them and did not store them.
                if before == "reference" and child.killed_for is None:
                    # The task's phases are over: the candidate's own limit starts now.
                    now = time.monotonic()
                    child.waited_s = now - child.started
                    child.deadline = now + child.budget_s
                self._send({"type": "progress", "id": child.job_id, "phase": child.phase,
                            "remaining_s": self._remaining(child)})
            elif kind == "result":
                child.results.append(message)
                if child.killed_for is None and len(child.results) == 1:
                    # A last sweep while its processes still live (the child waits for this
                    # answer before it exits): a short evaluation is checked too.
                    processes = process_tree.processes_now()
                    self.watchdog.check_threads(child, processes,
                                                process_tree.relays(child.pid, processes))
                    try:
                        child.channel.send({"type": "swept"})
                    except OSError:
                        child.open = False
            elif kind == "references" and child.phase == "reference" and child.plan is not None:
                # Only the harness's own code runs in the reference phase: the candidate has not
                # been imported, so it cannot have sent this.
                if message.get("key") == child.plan.key:
                    self.references.stored(child.plan.key, child.job_id, message.get("bytes"))
                child.plan = None  # One entry per child.
            elif (kind == "checked" and message.get("nonce") == child.nonce
                  and isinstance(message.get("facts"), dict)):
                child.checked = message["facts"]
            else:
                child.stray_lines += 1

    def _credit_wait(self, child: Child, notify: bool) -> None:
        """Gives a child waiting for the GPU lock the time it waited so far: another child's
        GPU work is not its candidate's time. The caller's outer deadline follows (progress)."""
        now = time.monotonic()
        assert child.wait_since is not None
        waited, child.wait_since = now - child.wait_since, now
        if child.paused:  # Paused by the zygote: credited up to its budget, so a hung one ends.
            waited = min(waited, max(0.0, child.budget_s - child.paused_s))
            child.paused_s += waited
        child.waited_s += waited
        if child.killed_for is None:
            child.deadline += waited
            if notify:
                self._send({"type": "progress", "id": child.job_id, "phase": child.phase,
                            "remaining_s": self._remaining(child)})

    def _remaining(self, child: Child) -> float:
        return round(max(0.0, child.deadline - time.monotonic()), 3)

    def _grant(self) -> None:
        for job_id in self.lock.resume_paused():
            child = self.children.get(job_id)
            if child is not None:
                self.patience.resume(child)
        for job_id, mode in self.lock.grant():
            child = self.children.get(job_id)
            if child is not None:
                child.asked_lock = None
                child.shared_since = time.monotonic() if mode == "shared" else None
            if child is not None and child.wait_since is not None:
                self._credit_wait(child, notify=True)
                child.wait_since = None
            if child is not None and child.open:
                try:
                    child.channel.send({"type": "granted", "mode": mode})
                except OSError:
                    child.open = False

    def _resumed(self, child: Child) -> None:
        """A paused child goes on: the pause is credited like a wait (see _credit_wait)."""
        if child.wait_since is not None:
            self._credit_wait(child, notify=True)
            child.wait_since = None

    def _grant_slots(self) -> None:
        taken = sum(1 for c in self.children.values() if c.holds_slot)
        while self.slot_queue and taken < self.slots:
            child = self.children.get(self.slot_queue.popleft())
            if child is None or child.killed_for is not None:
                continue
            if child.wait_since is not None:
                self._credit_wait(child, notify=False)  # Its next phase message tells the caller.
                child.wait_since = None
            child.holds_slot = True
            taken += 1
            try:
                child.channel.send({"type": "go"})
            except OSError:
                child.open = False

    # -- children ---------------------------------------------------------------------------------

    def _start_waiting(self) -> None:
        while (self.waiting and len(self.children) < self.slots + self.ahead
               and not self.shutting_down):
            message = self._next_startable()
            if message is None:
                return
            try:
                self._fork(Job.from_json(message))
            except Exception as e:  # noqa: BLE001 - a bad job must not stop the worker.
                kind = "ProtocolError" if isinstance(e, ProtocolError) else type(e).__name__
                self._send({"type": "result", "id": str(message.get("id")),
                            "facts": {"status": Status.HARNESS_ERROR,
                                      "error": errors.unclassified(kind, str(e), "")}})

    def _next_startable(self) -> dict[str, Any] | None:
        """The first job in line whose task's references no child is making now: the others
        wait for them rather than make them too (refcache.py)."""
        for message in self.waiting:
            key = message.get("reference_key") if self.references.enabled else None
            options = message.get("options")
            baseline = isinstance(options, dict) and options.get("baseline")
            if baseline or not (isinstance(key, str) and self.references.in_flight(key)):
                self.waiting.remove(message)
                return message
        return None

    def _fork(self, job: Job) -> None:
        job_id = job.id
        files = job_files.for_job(self.scratch, job)
        # A baseline has no candidate and a sanitizer's run no references: neither has a judge.
        compares = not (job.options.baseline or job.options.sanitize)
        plan = (self.references.plan(job.reference_key, job_id)
                if job.reference_key and self.references.enabled and compares else None)
        if plan is None and compares:
            plan = self.references.judge_only(job_id)
        # Before the fork: the zygote's limits and the child both use it.
        static = integrity.static_facts(load.candidate_python(job.task.kind,
                                                              job.candidate.source))
        box = self.sandboxing.plan(files, job.task.data_root, job.memory_limit_mb,
                                   tool_targets=bool(job.options.sanitize))
        outputs_fd = judge.outputs_file(job_id)
        # The references the judge reads: the cache's sealed entry, or the file this child fills.
        references = next(iter(plan.fds), None) if plan is not None else None
        references_fd = os.dup(references) if references is not None else -1
        ours, theirs = child_process.socketpair()
        pid = os.fork()
        if pid == 0:  # The child: never returns.
            os.close(ours)
            child_process.main(job, theirs, files, plan, static, box, STOP_SIGNALS,
                               self.sandboxing.required, outputs_fd)
        os.close(theirs)  # The child makes its own session and group (kill_group covers a
        if plan is not None and not plan.cached and plan.store_fd is not None:
            os.close(plan.store_fd)  # The child's copy and the judge's remain.
        os.set_blocking(ours, False)  # child that has not yet).
        self.children[job_id] = Child(job_id=job_id, pid=pid, channel=Channel(ours),
                                      nonce=job.nonce,
                                      deadline=time.monotonic() + job.timeout_s,
                                      budget_s=job.timeout_s,
                                      memory_limit_bytes=int(job.memory_limit_mb * (1 << 20)),
                                      files=files,
                                      static=static,
                                      plan=plan,
                                      outputs_fd=outputs_fd,
                                      references_fd=references_fd,
                                      tolerance=(job.options.criterion, job.options.atol,
                                                 job.options.rtol))
        self._send({"type": "started", "id": job_id, "pid": pid})

    def _reap(self) -> None:
        for child in list(self.children.values()):
            try:
                pid, status = os.waitpid(child.pid, os.WNOHANG)
            except ChildProcessError:
                pid, status = child.pid, 0
            if pid == 0:
                continue
            if child.open:  # Drain what it wrote before it exited.
                try:
                    for message in child.channel.read_available():
                        if isinstance(message, dict) and message.get("type") == "result":
                            child.results.append(message)
                except (ChannelClosed, OSError):
                    pass
            kill_group(child.pid)  # Whatever it started dies with it.
            self._finish(child, status)

    def _finish(self, child: Child, status: int) -> None:
        if child.gpu_before is not None and child.gpu_after is None and self.clocks is not None:
            child.gpu_after = self.clocks.read()  # Died holding the lock.
        facts = child_facts.final(child, status, self.sandboxing.containment,
                                  self.watchdog.memory_limit(child))
        facts.pop("judge", None)  # Only the judge's own: the child's words may be the candidate's.
        if facts.get("status") == Status.OK and facts.get("trials") and child.references_fd >= 0:
            self.judges.start(child, facts)
        else:
            if facts.get("status") == Status.OK and facts.get("trials"):
                facts["judge"] = {"references": "none", "trials": []}
            self._send({"type": "result", "id": child.job_id, "facts": facts})
        for fd in (child.outputs_fd, child.references_fd):
            if fd >= 0:
                os.close(fd)
        os.close(child.channel.fd)
        self.lock.release(child.job_id)
        del self.children[child.job_id]
        self.references.forget(child.job_id)
        job_files.finish(child.files, {c.files.cache_dir for c in self.children.values()})
        self._grant()
        self._grant_slots()

    def _enforce_limits(self) -> None:
        now = time.monotonic()
        if self.waiting and now - self.queue_notice > WAIT_NOTICE_SECONDS:
            # Not forked yet (its task's references in flight, say): its limit has not started,
            # and the caller's outer deadline must not either.
            self.queue_notice = now
            for message in self.waiting:
                limit = message.get("timeout_s")
                self._send({"type": "progress", "id": str(message.get("id")), "phase": "queued",
                            "remaining_s": limit if isinstance(limit, (int, float)) else 0})
        for child in self.children.values():
            if child.wait_since is not None:
                # Still waiting: credited every tick, so the limit never passes meanwhile; the
                # caller hears of it every few seconds.
                notify = now - child.last_notice > WAIT_NOTICE_SECONDS
                self._credit_wait(child, notify)
                if notify:
                    child.last_notice = now
            if child.killed_for is None and now > child.deadline:
                self._kill(child, "timeout")
        spared = ({c.pid for c in self.children.values()}
                  | {j.pid for j in self.judges.pending.values()})
        self.watchdog.sweep(self.children.values(), spared, now)
    def _on_stop_signals(self) -> None:
        while (info := signal.sigtimedwait(STOP_SIGNALS, 0)) is not None:
            name, sender = signal.Signals(info.si_signo).name, info.si_pid
            if sender in (0, os.getppid()):  # The controller or the kernel: stop as asked.
                self._kill_all(f"{name} from the controller")
                kill_descendants(os.getpid(), set())
                os._exit(128 + info.si_signo)
            attacker = self._child_of(sender)
            if attacker is not None:  # The candidate's tree: its verdict, and the worker lives.
                attacker.attacked_with = f"{name} (from its pid {sender})"
                self._kill(attacker, "attacked")
                continue
            reason = f"{name} from pid {sender} ({process_tree.command(sender)}), not a candidate's process"
            self._send({"type": "stopping", "reason": reason, "external": True})
            self._kill_all(reason)
            kill_descendants(os.getpid(), set())
            os._exit(128 + info.si_signo)

    def _child_of(self, pid: int) -> Child | None:
        """The child whose process tree `pid` is in now, or was in at the last sweep (a process
        that sent a signal and exited at once)."""
        by_pid = {c.pid: c for c in self.children.values()}
        parents = {p: parent for p, (parent, _) in process_tree.processes_now().items()}
        walk, seen = pid, set()
        while walk > 1 and walk not in seen:
            if walk in by_pid:
                return by_pid[walk]
            seen.add(walk)
            walk = parents.get(walk, 0)
        return by_pid.get(self.watchdog.tree_of.get(pid, 0))

    def _kill(self, child: Child, reason: str) -> None:
        child.killed_for = reason
        kill_group(child.pid)

    def _kill_all(self, reason: str) -> None:
        for child in self.children.values():
            if child.killed_for is None:
                self._kill(child, "cancelled")
        for fd in list(self.judges.pending):
            self.judges.end(fd, f"stopped: {reason}")
        _log(f"stopping all children: {reason}")

    def _send(self, message: dict[str, Any]) -> None:
        try:
            self.channel.send(message)
        except OSError:
            self.shutting_down = True  # The controller is gone; finish up.


def _log(text: str) -> None:
    sys.stderr.write(f"[adaexplore worker {os.getpid()}] {text}\n")
    sys.stderr.flush()
