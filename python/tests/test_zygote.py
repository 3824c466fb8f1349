"""The zygote's pieces that need no child: the GPU lock and the helpers."""

import os

from adaexplore_worker import zygote
from adaexplore_worker.protocol import Channel, sanitize


def test_lock_shares_readers_and_serialises_the_writer() -> None:
    lock = zygote.GpuLock()
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


def test_lock_release_of_a_dead_child_drops_its_requests() -> None:
    lock = zygote.GpuLock()
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
    assert zygote._safe_file("../../etc/passwd") == "passwd.py"
    assert zygote._safe_file("my kernel.py") == "my_kernel.py"


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
