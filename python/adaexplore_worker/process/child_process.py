"""The zygote's forked child, from the fork to its exit: it leaves the zygote's state behind
(signals, descriptors, output), enters the candidate's sandbox (sandbox.py), runs one
evaluation (child.py) and sends its one result. Never returns to the zygote's loop.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import Any

from ..correctness import refcache
from ..protocol.channel import Channel, sanitize
from ..protocol.job import Job
from ..sandbox import sandbox
from . import process_tree
from .job_files import JobFiles

PR_SET_PDEATHSIG = 1
SWEEP_WAIT_SECONDS = 5.0


def main(job: Job, fd: int, files: JobFiles, plan: refcache.Plan | None,
         static: dict[str, Any], sandbox_plan: sandbox.Plan, stop_signals: set[int],
         require_sandbox: bool, outputs_fd: int) -> None:
    """Exits with os._exit. `outputs_fd`: the memory file the candidate's outputs are recorded
    in for the judge (judge.py)."""
    code = 0
    try:
        # Its own session and process group, without the controlling terminal: nothing below
        # can open /dev/tty and type into the user's shell (TIOCSTI) or write to the terminal.
        os.setsid()
        _die_with_parent()
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGCHLD, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stop_signals)
        _redirect_output(files.job_dir)
        kept = (*(plan.fds if plan is not None else ()), outputs_fd)
        _close_fds_except({0, 1, 2, fd, *kept})
        import faulthandler
        import resource
        faulthandler.enable(file=sys.stderr, all_threads=True)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        started = time.perf_counter()
        box = sandbox.enter(sandbox_plan, close_in_relays=(fd, *kept))  # Returns in the evaluator.
        spent = {"sandbox.enter": time.perf_counter() - started}
        os.environ.update(files.cache_environment())
        os.chdir(files.job_dir)
        process_tree.set_subreaper()  # What the candidate starts and orphans stays below.
        os.environ["HOME"] = files.job_dir
        os.environ["TMPDIR"] = os.path.join(files.job_dir, "tmp")  # Inside what stays writable.
        os.makedirs(os.environ["TMPDIR"], exist_ok=True)
        import tempfile
        tempfile.tempdir = None  # The zygote's choice was cached; the child chooses again.
        from ..evaluation import child
        channel = Channel(fd)

        def confine() -> None:  # The evaluator is confined already (sandbox.enter).
            begun = time.perf_counter()
            sandbox.seal(box)
            spent["sandbox.seal"] = time.perf_counter() - begun
            missing = box.missing() if sandbox_plan.enabled else []
            if require_sandbox and missing:
                raise child.SandboxIncomplete(missing, box.facts.get("reasons", {}))

        facts = child.evaluate(job, channel, files.task_path, files.candidate_path, plan, static,
                               confine, outputs_fd)
        if sandbox_plan.enabled:
            # What entering it cost this candidate, beside the phases' own times.
            facts.setdefault("phases", {}).update({k: round(v, 4) for k, v in spent.items()})
        left = process_tree.kill_descendants(os.getpid(), set())
        if left:
            facts.setdefault("notes", []).append(
                f"killed {len(left)} process(es) the evaluation left running: pids "
                + ", ".join(map(str, left[:10])))
        channel.send({"type": "result", "nonce": job.nonce, "facts": _checked(sanitize(facts))})
        _wait_for_the_sweep(fd)
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


def enter_judge(keep: set[int]) -> None:
    """The zygote's forked judge (judge.py) leaves the zygote's state behind: it dies with the
    zygote, answers the stop signals, and keeps only its own descriptors."""
    _die_with_parent()
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGCHLD, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    _close_fds_except(keep)


def _checked(facts: dict[str, Any]) -> dict[str, Any]:
    """The harness's facts as the schema allows them, else a harness error naming the fault: the
    zygote then reads a result that breaks the schema as written by the candidate's code
    (child_facts.reported), never as the harness's bug."""
    from ..protocol.decode import ProtocolError
    from ..protocol.facts import Status, check_facts
    try:
        check_facts(facts)
        return facts
    except ProtocolError as e:
        return {"status": Status.HARNESS_ERROR, "phase": str(facts.get("phase", "")),
                "error": {"type": "ProtocolError", "message": str(e)[:500], "traceback": "",
                          "triton_compile": False, "cuda_error": None, "out_of_memory": False}}


def _wait_for_the_sweep(fd: int) -> None:
    """The zygote reads every thread of this process once more before it exits (a short
    evaluation would end between its periodic sweeps); at most SWEEP_WAIT_SECONDS."""
    import select
    try:
        if select.select([fd], [], [], SWEEP_WAIT_SECONDS)[0]:
            os.read(fd, 1 << 16)  # "swept", or the zygote went away.
    except OSError:
        pass


def socketpair() -> tuple[int, int]:
    import socket
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    fa, fb = a.detach(), b.detach()
    return fa, fb


def _die_with_parent() -> None:
    process_tree.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
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
