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

Each child is the leader of its own process group; a timeout or the memory watchdog kills the
whole group. A process that leaves the group (setsid, a double fork) is still contained: each
child is a subreaper and kills every process left below it before it reports (the facts' notes
say so), and the zygote is one too and kills whatever is reparented to it after a child died. Children share the device through a reader-writer lock the zygote arbitrates:
loading and correctness runs take it shared, timing takes it exclusively, so a timed run never
shares the GPU with another child's work.

Up to `ahead` children beyond the `slots` run the task's phases (CUDA start-up, the task, its
reference outputs) while the slots are taken, then wait for one (`ready`, `go`): a candidate
whose slot frees starts with its references made. Waiting for a slot, like waiting for the lock,
does not count against the candidate's limit.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from . import integrity, load, refcache
from .protocol import (TASK_PHASES, Channel, ChannelClosed, Job, ProtocolError, Status,
                       check_facts, sanitize)

TICK_SECONDS = 0.25
MEMORY_POLL_SECONDS = 0.5
WAIT_NOTICE_SECONDS = 5.0  # How often a long wait for the GPU lock moves the caller's deadline.
OUTPUT_TAIL_BYTES = 16_000
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
# Signals someone can send to stop the zygote. They are blocked in the zygote and read with their
# sender (sigtimedwait), so a stop is blamed on whoever sent it: the controller, a candidate's
# process tree, or something else on the machine. SIGKILL cannot be read; the C++ side then
# blames the candidate only if its worker dies under it again when it runs alone.
STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1,
                signal.SIGUSR2}


@dataclass
class Child:
    job_id: str
    pid: int
    channel: Channel
    nonce: str
    deadline: float
    memory_limit_bytes: int
    job_dir: str
    started: float = field(default_factory=time.monotonic)
    phase: str = "starting"
    results: list[dict[str, Any]] = field(default_factory=list)
    stray_lines: int = 0
    killed_for: str | None = None
    peak_rss: int = 0
    lock: str | None = None
    open: bool = True
    static: dict[str, Any] | None = None
    checked: dict[str, Any] | None = None  # The facts after the correctness trials.
    plan: refcache.Plan | None = None  # Its use of the reference cache.
    budget_s: float = 0  # The job's limit: for the task's phases, then again for the candidate.
    waited_s: float = 0  # Time not counted against the candidate (see _extend).
    wait_since: float | None = None  # Asked for the GPU lock or a slot, not granted yet.
    holds_slot: bool = False
    last_notice: float = 0.0  # When the caller last heard the limit moved during a wait.
    attacked_with: str = ""  # The stop signal its tree sent the zygote, if it did.


class GpuLock:
    """FIFO reader-writer lock over child ids. A waiting writer blocks later readers."""

    def __init__(self) -> None:
        self.shared: set[str] = set()
        self.exclusive: str | None = None
        self.queue: deque[tuple[str, str]] = deque()

    def request(self, job_id: str, mode: str) -> None:
        self.queue.append((job_id, mode))

    def grant(self) -> list[tuple[str, str]]:
        granted: list[tuple[str, str]] = []
        while self.queue:
            job_id, mode = self.queue[0]
            if self.exclusive is not None:
                break
            if mode == "shared":
                self.shared.add(job_id)
            elif not self.shared:
                self.exclusive = job_id
            else:
                break
            self.queue.popleft()
            granted.append((job_id, mode))
        return granted

    def release(self, job_id: str) -> None:
        self.shared.discard(job_id)
        if self.exclusive == job_id:
            self.exclusive = None
        self.queue = deque(item for item in self.queue if item[0] != job_id)


class Zygote:
    def __init__(self, channel: Channel, device: str, scratch: str, slots: int,
                 reference_cache_mb: float = 0, ahead: int = 0,
                 protections: dict[str, Any] | None = None) -> None:
        self.channel = channel
        self.protections = protections or {}  # What containment.apply put in force.
        self.references = refcache.ReferenceCache(os.path.join(scratch, "references"),
                                                  int(reference_cache_mb * (1 << 20)))
        self.device = device
        self.scratch = scratch
        self.slots = slots
        self.ahead = ahead
        self.children: dict[str, Child] = {}
        self.slot_queue: deque[str] = deque()  # Children ready for a slot, in order.
        self.waiting: deque[dict[str, Any]] = deque()
        self.lock = GpuLock()
        self.shutting_down = False
        self.next_memory_poll = 0.0
        self.tree_of: dict[int, int] = {}  # At the last sweep: pid -> the child whose tree it is in.
        _set_subreaper()
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)  # Unblocked in each child.

    # -- the loop ---------------------------------------------------------------------------------

    def run(self) -> None:
        try:
            self._loop()
        finally:  # Nothing a candidate started outlives the worker that ran it.
            _kill_descendants(os.getpid(), set())

    def _loop(self) -> None:
        while not (self.shutting_down and not self.children):
            self._start_waiting()
            readers = [c.channel.fd for c in self.children.values() if c.open]
            if not self.shutting_down:
                readers.append(self.channel.fd)
            readable, _, _ = select.select(readers, [], [], self._timeout())
            for fd in readable:
                if fd == self.channel.fd:
                    self._on_controller()
                else:
                    self._on_child(fd)
            self._reap()
            self._enforce_limits()
            self._on_stop_signals()

    def _timeout(self) -> float:
        now = time.monotonic()
        deadlines = [c.deadline - now for c in self.children.values() if c.killed_for is None]
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
            if kind == "acquire":
                child.wait_since = time.monotonic()
                self.lock.request(child.job_id, "exclusive" if message.get("mode") == "exclusive"
                                  else "shared")
                self._grant()
            elif kind == "release":
                self.lock.release(child.job_id)
                self._grant()
            elif (kind == "ready" and child.phase == "reference" and not child.holds_slot
                  and child.job_id not in self.slot_queue):
                # Before the candidate is imported, as for "references" below.
                child.wait_since = time.monotonic()
                self.slot_queue.append(child.job_id)
                self._grant_slots()
            elif kind == "phase":
                before, child.phase = child.phase, str(message.get("phase"))[:64]
                if before == "reference" and child.killed_for is None:
                    # The task's phases are over: the candidate's own limit starts now.
                    now = time.monotonic()
                    child.waited_s = now - child.started
                    child.deadline = now + child.budget_s
                self._send({"type": "progress", "id": child.job_id, "phase": child.phase,
                            "remaining_s": self._remaining(child)})
            elif kind == "result":
                child.results.append(message)
            elif kind == "references" and child.phase == "reference" and child.plan is not None:
                # Only the harness's own code runs in the reference phase: the candidate has not
                # been imported, so it cannot have sent this.
                self._store_references(child, message)
            elif (kind == "checked" and message.get("nonce") == child.nonce
                  and isinstance(message.get("facts"), dict)):
                child.checked = message["facts"]
            else:
                child.stray_lines += 1

    def _store_references(self, child: Child, message: dict[str, Any]) -> None:
        plan = child.plan
        assert plan is not None
        sha256, size = message.get("sha256"), message.get("bytes")
        if (message.get("key") == plan.key and isinstance(sha256, str)
                and isinstance(size, int)):
            self.references.add(plan.key, plan.store_path, sha256, size)
        child.plan = None  # One entry per child.

    def _credit_wait(self, child: Child, notify: bool) -> None:
        """Gives a child waiting for the GPU lock the time it waited so far: another child's
        GPU work is not its candidate's time. The caller's outer deadline follows (progress)."""
        now = time.monotonic()
        assert child.wait_since is not None
        waited, child.wait_since = now - child.wait_since, now
        child.waited_s += waited
        if child.killed_for is None:
            child.deadline += waited
            if notify:
                self._send({"type": "progress", "id": child.job_id, "phase": child.phase,
                            "remaining_s": self._remaining(child)})

    def _remaining(self, child: Child) -> float:
        return round(max(0.0, child.deadline - time.monotonic()), 3)

    def _grant(self) -> None:
        for job_id, mode in self.lock.grant():
            child = self.children.get(job_id)
            if child is not None and child.wait_since is not None:
                self._credit_wait(child, notify=True)
                child.wait_since = None
            if child is not None and child.open:
                try:
                    child.channel.send({"type": "granted", "mode": mode})
                except OSError:
                    child.open = False

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
            message = self.waiting.popleft()
            try:
                self._fork(Job.from_json(message))
            except Exception as e:  # noqa: BLE001 - a bad job must not stop the worker.
                kind = "ProtocolError" if isinstance(e, ProtocolError) else type(e).__name__
                self._send({"type": "result", "id": str(message.get("id")),
                            "facts": {"status": Status.HARNESS_ERROR,
                                      "error": {"type": kind, "message": str(e),
                                                "traceback": "", "triton_compile": False,
                                                "cuda_error": None, "out_of_memory": False}}})

    def _fork(self, job: Job) -> None:
        job_id = job.id
        job_dir = os.path.join(self.scratch, "jobs", _safe_name(job_id))
        shutil.rmtree(job_dir, ignore_errors=True)
        os.makedirs(job_dir)
        task_path = os.path.join(job_dir, _safe_file(job.task.filename or "task.py"))
        candidate_path = os.path.join(job_dir, "candidate_" + _safe_file(
            job.candidate.filename or "candidate.py"))
        with open(task_path, "w", encoding="utf-8") as f:
            f.write(job.task.source)
        with open(candidate_path, "w", encoding="utf-8") as f:
            f.write(job.candidate.source)
        plan = (self.references.plan(job.reference_key, job_id)
                if job.reference_key and self.references.enabled and not job.options.baseline
                else None)
        # Before the fork: the zygote's limits and the child both use it.
        static = integrity.static_facts(load.candidate_python(job.task.kind,
                                                              job.candidate.source))
        ours, theirs = _socketpair()
        pid = os.fork()
        if pid == 0:  # The child: never returns.
            os.close(ours)
            _child_main(job, theirs, job_dir, task_path, candidate_path, plan, static)
        os.close(theirs)
        try:
            os.setpgid(pid, pid)  # Also done in the child; whichever runs first wins the race.
        except OSError:
            pass
        os.set_blocking(ours, False)
        self.children[job_id] = Child(job_id=job_id, pid=pid, channel=Channel(ours),
                                      nonce=job.nonce,
                                      deadline=time.monotonic() + job.timeout_s,
                                      budget_s=job.timeout_s,
                                      memory_limit_bytes=int(job.memory_limit_mb * (1 << 20)),
                                      job_dir=job_dir,
                                      static=static,
                                      plan=plan)
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
            _kill_group(child.pid)  # Whatever it started dies with it.
            self._finish(child, status)

    def _finish(self, child: Child, status: int) -> None:
        facts = self._facts_for(child, status)
        facts["wall_s"] = round(time.monotonic() - child.started, 4)
        facts["waited_s"] = round(child.waited_s, 4)
        facts["child_pid"] = child.pid
        facts["peak_rss_mb"] = round(child.peak_rss / (1 << 20), 1)
        facts["containment"] = self.protections
        if child.static is not None:
            facts["static"] = child.static  # Read here, so a child that dies still has them.
        facts["stdout"] = _tail(os.path.join(child.job_dir, "stdout.txt"))
        facts["stderr"] = _tail(os.path.join(child.job_dir, "stderr.txt"))
        if child.stray_lines:
            facts["stray_lines"] = child.stray_lines
        try:
            check_facts(facts)
        except ProtocolError as e:  # The harness's own bug: say so rather than send it on.
            facts = {"status": Status.HARNESS_ERROR, "phase": child.phase,
                     "error": {"type": "ProtocolError", "message": str(e), "traceback": "",
                               "triton_compile": False, "cuda_error": None,
                               "out_of_memory": False}}
        self._send({"type": "result", "id": child.job_id, "facts": facts})
        os.close(child.channel.fd)
        self.lock.release(child.job_id)
        del self.children[child.job_id]
        shutil.rmtree(child.job_dir, ignore_errors=True)
        self._grant()
        self._grant_slots()

    def _facts_for(self, child: Child, status: int) -> dict[str, Any]:
        exit_info = {"exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                     "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                     "phase": child.phase}
        if child.killed_for == "timeout":
            # Killed after its trials (while timing, say): they stand, and the phase says where
            # it stopped, so a slow correct kernel is told from one that never finished a trial.
            kept = {k: v for k, v in (child.checked or {}).items()
                    if k in ("trials", "determinism", "determinism_passed", "reference",
                             "runtime_findings", "flags_changed_by_import", "notes", "phases")}
            return {**kept, "status": Status.TIMEOUT, "limit_s": child.budget_s, **exit_info}
        if child.killed_for == "memory":
            return {"status": Status.MEMORY_LIMIT,
                    "memory_limit_mb": round(self._memory_limit(child) / (1 << 20), 1),
                    **exit_info}
        if child.killed_for == "cancelled":
            return {"status": Status.CANCELLED, **exit_info}
        if child.killed_for == "attacked":
            return {"status": Status.CRASH, **exit_info,
                    "message": f"the candidate's process tree sent {child.attacked_with} to the "
                               f"evaluation worker; it was killed"}
        valid = [r for r in child.results if r.get("nonce") == child.nonce
                 and isinstance(r.get("facts"), dict)]
        if len(child.results) > 1 or (child.results and not valid):
            return {"status": Status.PROTOCOL_VIOLATION, **exit_info,
                    "message": f"the candidate process sent {len(child.results)} result messages "
                               f"({len(valid)} with the job's nonce); only the harness may send "
                               f"one"}
        if valid:
            facts = dict(valid[0]["facts"])
            facts.setdefault("exit", exit_info)
            return facts
        return {"status": Status.CRASH, **exit_info}

    def _enforce_limits(self) -> None:
        now = time.monotonic()
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
        if now < self.next_memory_poll:
            return
        self.next_memory_poll = now + MEMORY_POLL_SECONDS
        processes = _processes()
        for pid in _kill_descendants(os.getpid(), {c.pid for c in self.children.values()},
                                     processes):
            _log(f"killed process {pid}, left by an evaluation child that died")
        self.tree_of = {pid: child.pid for child in self.children.values()
                        for pid in _tree(child.pid, processes)}
        for child in self.children.values():
            if child.killed_for is not None:
                continue
            rss = _group_rss(child.pid, processes)
            child.peak_rss = max(child.peak_rss, rss)
            if child.memory_limit_bytes and rss > self._memory_limit(child):
                self._kill(child, "memory")

    def _memory_limit(self, child: Child) -> int:
        """The job's limit is a share of the worker's memory among its children at once. The
        task's own phases may use the whole of it: what a task needs to make its references must
        not depend on how many other candidates run (a task that needs more is the task's
        problem, task_error on the C++ side, at any slot count)."""
        if child.phase in TASK_PHASES:
            return child.memory_limit_bytes * (self.slots + self.ahead)
        return child.memory_limit_bytes

    def _on_stop_signals(self) -> None:
        while (info := signal.sigtimedwait(STOP_SIGNALS, 0)) is not None:
            name, sender = signal.Signals(info.si_signo).name, info.si_pid
            if sender in (0, os.getppid()):  # The controller or the kernel: stop as asked.
                self._kill_all(f"{name} from the controller")
                _kill_descendants(os.getpid(), set())
                os._exit(128 + info.si_signo)
            attacker = self._child_of(sender)
            if attacker is not None:  # The candidate's tree: its verdict, and the worker lives.
                attacker.attacked_with = f"{name} (from its pid {sender})"
                self._kill(attacker, "attacked")
                continue
            reason = f"{name} from pid {sender} ({_command(sender)}), not a candidate's process"
            self._send({"type": "stopping", "reason": reason, "external": True})
            self._kill_all(reason)
            _kill_descendants(os.getpid(), set())
            os._exit(128 + info.si_signo)

    def _child_of(self, pid: int) -> Child | None:
        """The child whose process tree `pid` is in now, or was in at the last sweep (a process
        that sent a signal and exited at once)."""
        by_pid = {c.pid: c for c in self.children.values()}
        parents = {p: parent for p, (parent, _) in _processes().items()}
        walk, seen = pid, set()
        while walk > 1 and walk not in seen:
            if walk in by_pid:
                return by_pid[walk]
            seen.add(walk)
            walk = parents.get(walk, 0)
        return by_pid.get(self.tree_of.get(pid, 0))

    def _kill(self, child: Child, reason: str) -> None:
        child.killed_for = reason
        _kill_group(child.pid)

    def _kill_all(self, reason: str) -> None:
        for child in self.children.values():
            if child.killed_for is None:
                self._kill(child, "cancelled")
        _log(f"stopping all children: {reason}")

    def _send(self, message: dict[str, Any]) -> None:
        try:
            self.channel.send(message)
        except OSError:
            self.shutting_down = True  # The controller is gone; finish up.


def _child_main(job: Job, fd: int, job_dir: str, task_path: str, candidate_path: str,
                plan: refcache.Plan | None, static: dict[str, Any]) -> None:
    """Runs in the forked child. Exits with os._exit; never returns to the zygote's loop."""
    code = 0
    try:
        os.setpgid(0, 0)
        _die_with_parent()
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGCHLD, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        _redirect_output(job_dir)
        _close_fds_except({0, 1, 2, fd})
        import faulthandler
        import resource
        faulthandler.enable(file=sys.stderr, all_threads=True)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.environ["TORCH_EXTENSIONS_DIR"] = os.path.join(job_dir, "torch_extensions")
        os.chdir(job_dir)
        _set_subreaper()  # What the candidate starts and orphans stays below this process.
        os.environ["HOME"] = job_dir
        os.environ["TMPDIR"] = os.path.join(job_dir, "tmp")  # Inside what stays writable.
        os.makedirs(os.environ["TMPDIR"], exist_ok=True)
        import tempfile
        tempfile.tempdir = None  # The zygote's choice was cached; the child chooses again.
        from . import child
        channel = Channel(fd)
        facts = child.evaluate(job, channel, task_path, candidate_path, plan, static)
        left = _kill_descendants(os.getpid(), set())
        if left:
            facts.setdefault("notes", []).append(
                f"killed {len(left)} process(es) the evaluation left running: pids "
                + ", ".join(map(str, left[:10])))
        channel.send({"type": "result", "nonce": job.nonce, "facts": sanitize(facts)})
    except BaseException as e:  # noqa: BLE001 - report, then exit without unwinding the zygote.
        code = 70
        try:
            sys.stderr.write(f"adaexplore worker child failed: {type(e).__name__}: {e}\n")
        except Exception:  # noqa: BLE001
            pass
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code)  # Skips atexit handlers, including any the candidate registered.


def _prctl(option: int, value: int) -> None:
    """Best effort: where prctl is unavailable, process groups and the C++ side still hold."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(option, value)
    except Exception:  # noqa: BLE001
        pass


def _set_subreaper() -> None:
    _prctl(PR_SET_CHILD_SUBREAPER, 1)


def _processes() -> dict[int, tuple[int, int]]:
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


def _tree(root: int, processes: dict[int, tuple[int, int]], spare: frozenset[int] = frozenset()
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


def _kill_descendants(root: int, spare: set[int],
                      processes: dict[int, tuple[int, int]] | None = None) -> list[int]:
    """Kills every process below `root` except the subtrees of `spare` (the zygote's live
    children), and reaps those that were its own children. Returns the pids killed."""
    processes = _processes() if processes is None else processes
    parents = {pid: parent for pid, (parent, _) in processes.items()}
    below = _tree(root, processes, frozenset(spare))[1:]
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


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()[:120] or "?"
    except OSError:
        return "exited"


def _die_with_parent() -> None:
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() == 1:
        os._exit(71)


def _redirect_output(job_dir: str) -> None:
    for fd, name in ((1, "stdout.txt"), (2, "stderr.txt")):
        target = os.open(os.path.join(job_dir, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115


def _close_fds_except(keep: set[int]) -> None:
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, 1024))
    for fd in fds:
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _socketpair() -> tuple[int, int]:
    import socket
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    fa, fb = a.detach(), b.detach()
    return fa, fb


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _group_rss(pgid: int, processes: dict[int, tuple[int, int]]) -> int:
    """Resident bytes of every process in group `pgid` (the child and what it started)."""
    total = 0
    page = os.sysconf("SC_PAGE_SIZE")
    for pid, (_, group) in processes.items():
        if group != pgid:
            continue
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                total += int(f.read().split()[1]) * page
        except (OSError, ValueError, IndexError):
            continue
    return total


def _tail(path: str) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - OUTPUT_TAIL_BYTES))
            data = f.read()
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    return ("[... earlier output dropped ...]\n" + text) if size > OUTPUT_TAIL_BYTES else text


def _safe_name(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in text)[:80] or "job"


def _safe_file(name: str) -> str:
    """A safe file name keeping a .json suffix (FlashInfer-Trace definitions and Solutions);
    anything else becomes .py."""
    base = os.path.basename(name)
    suffix = ".json" if base.endswith(".json") else ".py"
    stem = _safe_name(base[:-len(suffix)] if base.endswith(suffix) else base)
    return stem + suffix


def _log(text: str) -> None:
    sys.stderr.write(f"[adaexplore worker {os.getpid()}] {text}\n")
    sys.stderr.flush()
