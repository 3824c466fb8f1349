"""The head start of a timed run: how long the GPU is kept busy (the L2 flush, then a spin) while
the host launches the call, and what a run whose host outlasted it is worth.

A timed run's window opens on the GPU when the head start ends. If the host is still launching
the call then (a slow call, or a host slowed by other work beside it: other slots' checks and
compiles), the GPU waits for it inside the window and the run times the host. Each run's host
time, from the head start's launch to the end event's, says whether that may have happened: a
run is *late* when the host took longer than the head start.

`HeadStart` counts late runs, which every result reports (`host_late_runs`: every run the timer
made, warm-ups and both sides included). With a cap
(`head_start_max_us`, from the C++ side; 0 leaves the head start at the flush alone), a late run
is not kept while the head start can still grow, and the spin grows so that the head start
covers twice the late host time, up to the cap. At the cap a late run is kept: a call whose host
outlasts the cap is host-bound, and its call time is the host's. So the runs kept time the call
from a stream the host has run ahead of, whatever load sits beside it, and at most a few runs are
dropped (each doubles the head start). The reference and the candidate share one HeadStart.
"""

from __future__ import annotations


class HeadStart:
    def __init__(self, flush_us: float, max_us: float) -> None:
        """`flush_us`: the L2 flush's device time (0 without a flush); `max_us`: the cap, or 0."""
        self.flush_us = flush_us
        self.max_us = max_us
        self.spin_us = 0.0
        self.late = 0  # Runs whose host outlasted the head start.
        self.dropped = 0  # Late runs not kept.

    @property
    def head_us(self) -> float:
        return self.flush_us + self.spin_us

    def observe(self, host_us: float) -> bool:
        """Whether the run whose host took `host_us` is kept; grows the spin after a late one."""
        if host_us <= self.head_us or (self.head_us <= 0 and self.max_us <= 0):
            return True  # Covered; or no head start at all, the host's time by design.
        self.late += 1
        if self.max_us <= 0 or self.head_us >= self.max_us:
            return True
        self.spin_us = min(self.max_us, 2 * host_us) - self.flush_us
        self.dropped += 1
        return False

    def facts(self) -> dict[str, float | int]:
        return {"host_late_runs": self.late, "host_late_dropped": self.dropped,
                "head_start_us": round(self.head_us, 3)}
