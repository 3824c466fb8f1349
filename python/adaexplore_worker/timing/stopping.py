"""When a timing's runs may stop: the profile's rule (JobOptions), carried out run by run.

A timing runs at most `timed_runs` runs. With `timing_precision` or `timing_budget_ms` set (the
strict profile) it stops earlier, never before `min_timed_runs`: once the median of every series
it times (the candidate, and the reference interleaved with it) is known to `timing_precision`,
or once its timed runs have taken `timing_budget_ms` of measured time in all, as
triton.testing.do_bench and nvbench stop on a time budget. Both 0: the fixed count (the paper,
reference and kernelbench profiles: the harnesses they reproduce run fixed counts).

"Known to p": the distribution-free 95% confidence interval of the median (order statistics at
ranks n/2 -+ 1.96 sqrt(n)/2), half its width over the median, is at most p. The C++ side computes
the same figure for every series it reads (eval/verdict.h, TimingStats::median_halfwidth).
"""

from __future__ import annotations

import math

from ..protocol.job import JobOptions

Z95 = 1.96


def median_halfwidth(samples: list[float]) -> float:
    """Half the width of the median's 95% interval over the median; inf for fewer than 2 samples
    or a median of 0."""
    n = len(samples)
    if n < 2:
        return math.inf
    s = sorted(samples)
    spread = Z95 * math.sqrt(n) / 2
    lo = min(max(math.floor(n / 2 - spread), 1), n) - 1  # 1-based ranks, clamped.
    hi = min(max(math.ceil(n / 2 + spread), 1), n) - 1
    median = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    if median <= 0:
        return math.inf
    return (s[hi] - s[lo]) / 2 / median


class Stopper:
    """Says, after each timed run, whether the timing is done and why ("precision", "budget",
    "runs": the maximum count)."""

    def __init__(self, o: JobOptions) -> None:
        self.max_runs = o.timed_runs
        self.adaptive = o.timing_precision > 0 or o.timing_budget_ms > 0
        self.min_runs = min(o.min_timed_runs, o.timed_runs) if self.adaptive else o.timed_runs
        self.precision = o.timing_precision
        self.budget_ms = o.timing_budget_ms

    @classmethod
    def fixed(cls, o: JobOptions, runs: int) -> Stopper:
        """Exactly `runs` runs, whatever the profile's rule."""
        stopper = cls(o)
        stopper.max_runs = stopper.min_runs = runs
        stopper.adaptive = False
        return stopper

    def done(self, series: list[list[float]]) -> str | None:
        """`series`: each timed series' samples so far (milliseconds), of equal length."""
        n = min((len(s) for s in series), default=0)
        if n >= self.max_runs:
            return "runs"
        if n < self.min_runs:
            return None
        if self.budget_ms > 0 and sum(sum(s) for s in series) >= self.budget_ms:
            return "budget"
        if self.precision > 0 and all(median_halfwidth(s) <= self.precision for s in series):
            return "precision"
        return None
