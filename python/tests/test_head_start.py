"""The head start's rule (head_start.py): which timed runs are late, which are kept, and how the
spin grows. The GPU side (the flush's and the spin's device time) runs only on a GPU; the rule is
the same function of the host's time there."""

import time

import pytest
import torch

from adaexplore_worker.timing.head_start import HeadStart
from adaexplore_worker.timing.timing import Timer


def test_without_a_cap_late_runs_are_counted_and_kept() -> None:
    h = HeadStart(flush_us=130.0, max_us=0.0)
    assert [h.observe(us) for us in (40.0, 129.0, 400.0, 2000.0)] == [True, True, True, True]
    assert (h.late, h.dropped, h.head_us) == (2, 0, 130.0)
    assert h.facts() == {"host_late_runs": 2, "host_late_dropped": 0, "head_start_us": 130.0}


def test_a_late_run_is_dropped_and_the_spin_covers_twice_its_host_time() -> None:
    h = HeadStart(flush_us=130.0, max_us=5000.0)
    assert h.observe(40.0)
    assert not h.observe(300.0)  # The host outlasted 130 us: the GPU may have waited.
    assert h.head_us == 600.0 and h.spin_us == 470.0
    assert h.observe(500.0)  # Covered now.
    assert not h.observe(1800.0)
    assert h.head_us == 3600.0
    assert (h.late, h.dropped) == (2, 2)


def test_at_the_cap_a_late_run_is_kept_a_host_bound_call_is_timed_as_it_is() -> None:
    h = HeadStart(flush_us=130.0, max_us=1000.0)
    assert not h.observe(700.0)
    assert h.head_us == 1000.0  # 2 x 700 capped.
    # Every later run outlasts the cap: each is kept, and each is counted.
    assert all(h.observe(8000.0) for _ in range(5))
    assert (h.late, h.dropped, h.head_us) == (6, 1, 1000.0)


def test_drops_are_few_whatever_the_host_does() -> None:
    # A host that gets slower run by run: each drop at least doubles the head start, so a cap of
    # 10 ms over a 130 us flush allows at most log2(10000/130) < 7 drops.
    h = HeadStart(flush_us=130.0, max_us=10_000.0)
    for i in range(200):
        h.observe(131.0 * 1.5 ** i if i < 40 else 50_000.0)
    assert h.dropped <= 7 and h.head_us == 10_000.0


def test_without_a_flush_or_spin_nothing_is_late() -> None:
    # No head start at all (a profile without the flush): the call time is the host's by design.
    h = HeadStart(flush_us=0.0, max_us=0.0)
    assert h.observe(500.0) and h.late == 0


def test_a_cap_without_a_flush_grows_a_spin_alone() -> None:
    h = HeadStart(flush_us=0.0, max_us=2000.0)
    assert not h.observe(300.0)
    assert h.head_us == h.spin_us == 600.0
    assert h.observe(300.0)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="the head start's spin needs a GPU")
def test_a_grown_spin_is_not_in_a_runs_wall_time() -> None:
    timer = Timer(torch.device("cuda"), l2_flush=True, head_start_max_us=20000.0)
    x = torch.ones(1 << 14, device="cuda")

    def call(t: torch.Tensor) -> torch.Tensor:
        time.sleep(0.002)  # 2 ms of host before the launch: the spin grows to cover it.
        return t + 1

    runs = [timer.time(call, [x]) for _ in range(6)]
    assert timer.head_start.dropped >= 1 and timer.head_start.head_us >= 4000
    last = runs[-1]
    assert last.kept
    assert last.ms < 0.5  # The window opened after the host had launched the call.
    # From the head start's end: the call's window, the launch latency and the synchronise, not
    # the 4 ms of spin the host waited out (the stream-escape check's wall view reads it).
    assert -0.05 < last.wall_ms - last.ms < 0.2, last
