"""The adaptive timing's stopping rule (stopping.py), alone; test_worker.py runs it in a worker."""

from __future__ import annotations

import dataclasses
import json
import math

from adaexplore_worker.protocol.job import JobOptions
from adaexplore_worker.timing.stopping import Stopper, median_halfwidth

from conftest import CPU_OPTIONS


def options(**overrides) -> JobOptions:
    return dataclasses.replace(JobOptions.from_json(json.loads(json.dumps(CPU_OPTIONS))),
                               **overrides)


def test_the_median_interval_is_read_from_order_statistics() -> None:
    # n = 20: ranks 5 and 15 (1-based), around a median of 10.5. The C++ side's test
    # (eval/verdict_test.cc) reads the same figure from the same series.
    series = [float(v) for v in range(1, 21)]
    assert median_halfwidth(series) == (15 - 5) / 2 / 10.5
    assert median_halfwidth([2.0] * 20) == 0.0
    assert median_halfwidth([1.0]) == math.inf
    assert median_halfwidth([0.0, 0.0, 0.0]) == math.inf


def test_fixed_counts_run_every_run() -> None:
    stop = Stopper(options(timed_runs=30, min_timed_runs=5, timing_precision=0,
                           timing_budget_ms=0))
    steady = [1.0] * 29
    assert stop.done([steady]) is None
    assert stop.done([steady + [1.0]]) == "runs"


def test_a_steady_series_stops_at_the_minimum() -> None:
    stop = Stopper(options(timed_runs=100, min_timed_runs=20, timing_precision=0.005,
                           timing_budget_ms=0))
    assert stop.done([[1.0] * 19, [2.0] * 19]) is None
    assert stop.done([[1.0] * 20, [2.0] * 20]) == "precision"


def test_every_watched_series_must_settle() -> None:
    stop = Stopper(options(timed_runs=100, min_timed_runs=20, timing_precision=0.005,
                           timing_budget_ms=0))
    noisy = [1.0 + (i % 7) * 0.1 for i in range(60)]
    assert stop.done([[1.0] * 60, noisy]) is None
    assert stop.done([[1.0] * 100, noisy + [1.0] * 40]) == "runs"


def test_the_budget_stops_a_slow_series_but_not_before_the_minimum() -> None:
    stop = Stopper(options(timed_runs=100, min_timed_runs=10, timing_precision=0.005,
                           timing_budget_ms=500))
    # Noisy, about 44 ms a run: 9 runs of both series take 792 ms, past the budget, but the
    # minimum is 10.
    slow = [float(40 + i % 9) for i in range(9)]
    assert stop.done([slow, slow]) is None
    assert stop.done([slow + [44.0], slow + [44.0]]) == "budget"


def test_the_minimum_never_exceeds_the_maximum() -> None:
    stop = Stopper(options(timed_runs=3, min_timed_runs=20, timing_precision=0.005,
                           timing_budget_ms=0))
    assert stop.done([[1.0, 1.0, 1.0]]) == "runs"
