"""The zygote's pieces that need no child: the GPU lock and the helpers."""

import os

from adaexplore_worker import job_files
from adaexplore_worker.gpu_lock import GpuLock
from adaexplore_worker.channel import Channel, sanitize


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
    from adaexplore_worker.zygote import Child, Zygote
    z = object.__new__(Zygote)
    z.slots, z.ahead = 4, 2
    child = Child(job_id="j", pid=1, channel=None, nonce="n", deadline=0.0,  # type: ignore[arg-type]
                  memory_limit_bytes=1 << 30, files=None)  # type: ignore[arg-type]
    for phase in ("starting", "load_task", "reference"):
        child.phase = phase
        assert z._memory_limit(child) == 6 << 30
    for phase in ("import", "check", "timing"):
        child.phase = phase
        assert z._memory_limit(child) == 1 << 30
