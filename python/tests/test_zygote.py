"""The zygote's pieces that need no child: the GPU lock and the helpers."""

import os

from adaexplore_worker.process import child_facts, job_files
from adaexplore_worker.process.gpu_lock import GpuLock
from adaexplore_worker.protocol.channel import Channel, sanitize
from adaexplore_worker.protocol.facts import check_facts


def test_lock_shares_readers_and_serialises_the_writer() -> None:
    lock = GpuLock()
    lock.request("a", "shared")
    lock.request("b", "shared")
    assert lock.grant() == [("a", "shared"), ("b", "shared")]
    lock.request("c", "exclusive")
    lock.request("d", "shared")  # Waits behind the writer: timing is never starved.
    assert lock.grant() == []
    lock.release("a")
    assert lock.grant() == []
    lock.release("b")
    assert lock.grant() == [("c", "exclusive")]
    lock.release("c")
    assert lock.grant() == [("d", "shared")]


def test_a_paused_holder_lets_the_writers_go_and_comes_back_when_none_waits() -> None:
    lock = GpuLock()
    lock.request("hung", "shared")
    assert lock.grant() == [("hung", "shared")]
    lock.request("t1", "exclusive")
    lock.request("t2", "exclusive")
    assert lock.grant() == []
    assert lock.writer_waiting() == "t1"
    lock.pause("hung")
    assert lock.resume_paused() == []  # Writers wait: it stays out.
    assert lock.grant() == [("t1", "exclusive")]
    assert lock.writer_waiting() is None
    lock.release("t1")
    assert lock.resume_paused() == []  # t2 still waits.
    assert lock.grant() == [("t2", "exclusive")]
    lock.release("t2")
    assert lock.resume_paused() == ["hung"]
    assert lock.shared == {"hung"} and not lock.paused
    lock.pause("hung")
    lock.release("hung")  # A paused child that dies leaves nothing behind.
    assert not lock.paused and lock.resume_paused() == []


def test_lock_release_of_a_dead_child_drops_its_requests() -> None:
    lock = GpuLock()
    lock.request("a", "exclusive")
    assert lock.grant() == [("a", "exclusive")]
    lock.request("b", "shared")
    lock.request("a", "shared")
    lock.release("a")
    assert lock.grant() == [("b", "shared")]
    assert lock.exclusive is None


def test_sanitize_makes_facts_json_safe() -> None:
    facts = sanitize({"a": float("nan"), "b": [float("inf"), 1.5], "c": object, 2: None})
    assert facts["a"] is None and facts["b"] == [None, 1.5]
    assert isinstance(facts["c"], str) and facts["2"] is None


def test_safe_file_names() -> None:
    assert job_files.safe_file("../../etc/passwd") == "passwd.py"
    assert job_files.safe_file("my kernel.py") == "my_kernel.py"


def test_baselines_of_different_tasks_never_share_compile_caches(tmp_path) -> None:
    """A baseline has no candidate: keyed by the candidate's (empty) source, every task's
    torch.compile wrote one folder, and two at once failed there."""
    def cache(job_id: str, candidate: str, task: str, baseline: bool) -> str:
        return job_files.prepare(str(tmp_path), job_id, candidate, task,
                                 cache_key=task if baseline else None).cache_dir
    assert cache("a", "", "task one", True) != cache("b", "", "task two", True)
    assert cache("c", "", "task one", True) == cache("d", "", "task one", True)
    # A candidate's caches stay its own, whatever the task: its compiled kernels are reused.
    assert cache("e", "kernel", "task one", False) == cache("f", "kernel", "task two", False)
    assert cache("g", "", "task one", False) != cache("h", "", "task one", True)


def test_channel_round_trip_and_malformed_lines() -> None:
    r, w = os.pipe()
    out = Channel(w)
    out.send({"type": "x", "n": 1})
    os.write(w, b"garbage\n[1]\n")
    out.send({"type": "y"})
    os.close(w)
    inp = Channel(r)
    assert inp.read_blocking() == {"type": "x", "n": 1}
    assert inp.read_blocking() == {"type": "y"}  # Non-objects are skipped.
    os.close(r)


def test_the_tasks_phases_may_use_the_whole_workers_memory() -> None:
    """A job's memory limit is its share among the worker's children; what the task needs to
    make its references must not depend on that share (the slot count)."""
    from adaexplore_worker.process.child_state import Child
    from adaexplore_worker.process.watchdog import Watchdog
    from adaexplore_worker.sandbox.sandbox import Settings
    watchdog = Watchdog(Settings(enabled=False), slots=4, ahead=2, kill=lambda c, r: None,
                        log=print)
    child = Child(job_id="j", pid=1, channel=None, nonce="n", deadline=0.0,  # type: ignore[arg-type]
                  memory_limit_bytes=1 << 30, files=None)  # type: ignore[arg-type]
    for phase in ("starting", "load_task", "reference"):
        child.phase = phase
        assert watchdog.memory_limit(child) == 6 << 30
    for phase in ("import", "check", "timing"):
        child.phase = phase
        assert watchdog.memory_limit(child) == 1 << 30


class _FakeActivity:
    """NVML as the zygote reads it: the pids whose kernels ran, or None for a failure."""

    def __init__(self, busy: set[int] | None) -> None:
        self.busy = busy

    def busy_pids(self, since_us: int) -> set[int] | None:
        return self.busy


class _Sink:
    def __init__(self) -> None:
        self.sent: list[dict] = []

    def send(self, message: dict) -> None:
        self.sent.append(message)


def _paused_zygote(activity: _FakeActivity):
    """A zygote's lock and one child, a real process of its own group, paused in its check
    while a timing waits (the zygote's loop and channel are not needed for _drain)."""
    import subprocess
    import time

    from adaexplore_worker.process.child_state import Child
    from adaexplore_worker.process.zygote import Zygote

    proc = subprocess.Popen(["sleep", "60"], start_new_session=True)
    zygote = Zygote.__new__(Zygote)
    from adaexplore_worker.process.lock_patience import LockPatience

    zygote.lock, zygote.children, zygote.shutting_down = GpuLock(), {}, False
    zygote.channel = _Sink()
    zygote.patience = LockPatience(zygote.lock, "cpu", 0.5, "", resumed=zygote._resumed,
                                   kill=zygote._kill, log=print)
    zygote.patience.device, zygote.patience.activity = "cuda", activity
    child = Child(job_id="hung", pid=proc.pid, channel=None, nonce="n",
                  deadline=time.monotonic() + 60, memory_limit_bytes=0, files=None)
    zygote.children["hung"] = child
    zygote.lock.request("hung", "shared")
    zygote.lock.grant()
    zygote.lock.request("timing", "exclusive")
    zygote.patience.pause(child)
    return zygote, child, proc


def test_a_paused_check_leaves_the_lock_once_its_kernels_have_ended() -> None:
    import time

    zygote, child, proc = _paused_zygote(_FakeActivity(set()))
    try:
        now = time.monotonic()
        assert zygote.patience.drain(child, now) is False  # Not quiet for long enough yet.
        assert zygote.patience.drain(child, now + 1.1) is True
        assert zygote.lock.paused == {"hung"} and zygote.lock.grant() == [("timing", "exclusive")]
    finally:
        proc.kill()
        proc.wait()


def test_a_paused_check_whose_kernel_spins_is_stopped_as_a_timeout() -> None:
    import time

    activity = _FakeActivity(set())
    zygote, child, proc = _paused_zygote(activity)
    activity.busy = {proc.pid}
    try:
        now = time.monotonic()
        assert zygote.patience.drain(child, now + 0.5) is False  # Its kernel runs: the timing waits.
        assert "hung" in zygote.lock.shared
        assert zygote.patience.drain(child, now + 1.2) is True  # Past twice the patience: stopped.
        assert child.killed_for == "gpu_busy"
        assert proc.wait(timeout=10) != 0
        facts = child_facts.reported(child, 9, memory_limit_bytes=0)
        assert facts["status"] == "timeout" and "kept the GPU busy" in facts["message"]
        check_facts(facts)  # A result the protocol accepts.
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_without_nvml_answers_a_paused_check_is_resumed_and_keeps_the_lock() -> None:
    import time

    zygote, child, proc = _paused_zygote(_FakeActivity(None))
    try:
        assert zygote.patience.drain(child, time.monotonic()) is False
        assert not child.paused and "hung" in zygote.lock.shared
        assert zygote.patience.activity is None  # No more pausing on this worker.
    finally:
        proc.kill()
        proc.wait()


def test_nvml_is_absent_on_a_machine_without_a_gpu_driver() -> None:
    from adaexplore_worker.timing.gpu_activity import GpuActivity

    import pytest

    if os.path.exists("/proc/driver/nvidia"):
        pytest.skip("a GPU machine: bench/gpu/hung_candidate.sh covers NVML there")
    assert GpuActivity.open("GPU-00000000-0000-0000-0000-000000000000") is None
