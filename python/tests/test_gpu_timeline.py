"""The GPU timeline's reading of CUPTI's records: which GPU work is a timed call's, its span, and
what ran outside every call. CUPTI itself needs a GPU (the GPU red team and
bench/gpu/gpu_time_speedups.sh); here the records are made by hand, as CUPTI gives them
(nanoseconds, correlation ids, system thread ids)."""

from types import SimpleNamespace

import pytest
import torch

from adaexplore_worker.evaluation import measure
from adaexplore_worker.timing import gpu_timeline
from adaexplore_worker.timing.gpu_timeline import Launch, Work, read, union_length
from adaexplore_worker.timing.setup_marks import Marks

HARNESS = 100  # The harness's thread.
OTHER = 200  # A thread the candidate started.


def test_a_calls_span_runs_from_its_first_gpu_work_to_its_last_on_any_stream() -> None:
    windows = [(1_000, 2_000), (10_000, 11_000)]
    launches = [Launch(900, 1, HARNESS),  # The flush, before the first window.
                Launch(1_100, 2, HARNESS), Launch(1_500, 3, HARNESS),  # The first call's.
                Launch(1_700, 4, OTHER),  # A thread of the candidate's, during the call.
                Launch(10_100, 5, HARNESS)]
    work = [Work(950, 1_900, 1, "fill"),
            Work(2_000, 2_500, 2, "k1"),
            Work(3_000, 3_200, 3, "k2"),  # A gap the host left: counted.
            Work(2_100, 2_300, 4, "side"),  # On another stream, overlapping k1.
            Work(11_500, 11_600, 5, "k1")]
    reading = read(windows, work, launches, HARNESS)
    assert reading.lost is None
    assert [s.span_ns for s in reading.spans] == [1_200, 100]
    assert [s.busy_ns for s in reading.spans] == [700, 100]
    assert [s.records for s in reading.spans] == [3, 1]
    assert (reading.outside_ns, reading.outside_records) == (0, 0)  # The flush is the harness's.


def test_work_launched_outside_every_call_by_another_thread_is_outside() -> None:
    windows = [(1_000, 2_000)]
    launches = [Launch(500, 1, OTHER),  # Before the window: work done ahead of the call.
                Launch(1_500, 2, HARNESS),
                Launch(2_500, 3, OTHER),  # After the call returned.
                Launch(3_000, 4, HARNESS)]  # The harness's own (re-validation).
    work = [Work(600, 900, 1, "ahead"), Work(2_000, 2_010, 2, "copy"),
            Work(2_600, 2_800, 3, "late"), Work(3_100, 3_200, 4, "compare"),
            Work(4_000, 4_050, 99, "unrecorded")]  # No launch record at all: outside too.
    reading = read(windows, work, launches, HARNESS)
    assert reading.spans[0].span_ns == 10
    assert reading.outside_records == 3
    assert reading.outside_ns == 300 + 200 + 50


def test_a_call_without_gpu_work_has_an_empty_span_and_a_silent_timeline_is_lost() -> None:
    reading = read([(1_000, 2_000), (3_000, 4_000)],
                   [Work(1_200, 1_300, 1, "k")], [Launch(1_100, 1, HARNESS)], HARNESS)
    assert [s.records for s in reading.spans] == [1, 0]
    assert reading.spans[1].span_ns == 0
    assert read([(1_000, 2_000)], [], [], HARNESS).lost == \
        "CUPTI recorded nothing during the timed runs"
    assert read([], [], [], HARNESS).lost is None  # Nothing timed, nothing lost.


def test_a_launch_at_a_windows_edge_belongs_to_it() -> None:
    windows = [(1_000, 2_000), (2_000, 3_000)]
    reading = read(windows, [Work(5_000, 5_010, 1, "a"), Work(6_000, 6_020, 2, "b")],
                   [Launch(1_000, 1, HARNESS), Launch(3_000, 2, HARNESS)], HARNESS)
    assert [s.span_ns for s in reading.spans] == [10, 20]


def test_union_length() -> None:
    assert union_length([(0, 10), (5, 15), (20, 30), (25, 26), (40, 40)]) == 25
    assert union_length([]) == 0
    assert union_length([(0.5, 1.5), (1.0, 2.0)]) == 1.5


def test_without_a_gpu_there_is_no_timeline_and_it_says_why() -> None:
    why = gpu_timeline.available()
    if not torch.cuda.is_available():
        assert why is not None and ("CUPTI unavailable" in why or "cupti-python" in why)
    assert gpu_timeline.Timeline().stop().lost == "the timeline was not started"


def test_the_operators_time_is_its_work_on_the_gpu_without_the_tests_setup_calls() -> None:
    # One call of a test: inputs made (a setup range: randn and a copy), the operator's two
    # kernels with a host gap between them, more inputs (a second range that launches nothing
    # on the GPU: the host's own work), the operator again. A kernel of the candidate's own
    # launched inside a setup range (a torch.library override of randn) is the operator's.
    setup = [gpu_timeline.SetupRange(1_100, 1_300, HARNESS),
             gpu_timeline.SetupRange(2_000, 2_900, HARNESS),
             gpu_timeline.SetupRange(4_000, 4_100, OTHER)]  # Another thread's: not this one's.
    launches = [Launch(1_150, 1, HARNESS), Launch(1_250, 2, HARNESS),  # Setup.
                Launch(1_400, 3, HARNESS), Launch(1_600, 4, HARNESS),  # Operator, piece 1.
                Launch(3_000, 5, HARNESS),  # Operator, piece 2.
                Launch(3_100, 6, HARNESS)]  # In no range of this thread: the operator's.
    work = [Work(1_200, 1_700, 1, "at::native::normal_kernel"),
            Work(1_700, 1_750, 2, "memcpy", kernel=False),
            Work(1_800, 1_900, 3, "op_kernel"),
            Work(2_100, 2_200, 4, "op_kernel"),  # The test's Python before it: not counted.
            Work(3_500, 3_600, 5, "op_kernel"),
            Work(3_600, 3_650, 6, "op_epilogue")]
    reading = read([(1_000, 5_000)], work, launches, HARNESS, setup)
    span = reading.spans[0]
    assert (span.records, span.operator_records) == (6, 4)
    assert span.operator_ns == 100 + 100 + 100 + 50
    assert reading.setup_kernels == {0: {"at::native::normal_kernel": 1, "memcpy": 1}}
    # The candidate's own kernel, launched from inside a setup range, is never setup.
    own = read([(1_000, 5_000)], work, launches, HARNESS, setup,
               own=lambda name: name == "at::native::normal_kernel")
    assert own.spans[0].operator_records == 5
    assert own.setup_kernels == {0: {"memcpy": 1}}
    # Without setup ranges the operator's time is the call's whole busy time.
    plain = read([(1_000, 5_000)], work, launches, HARNESS)
    assert plain.spans[0].operator_ns == plain.spans[0].busy_ns == 550 + 100 + 100 + 150


def test_a_timed_phase_that_fails_stops_the_timeline_and_gives_the_marks_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A TritonBench-G task's timed phase on a GPU (faked here: CUPTI needs one), cut short by
    # the candidate's failure: CUPTI must not record on, nor the marks note ranges on it.
    stopped: list[bool] = []

    class FakeTimeline:
        own = None

        def start(self, warm: object) -> None:
            pass

        def stop(self) -> gpu_timeline.Reading:
            stopped.append(True)
            return gpu_timeline.Reading()

    monkeypatch.setattr(gpu_timeline, "available", lambda: None)
    monkeypatch.setattr(gpu_timeline, "Timeline", FakeTimeline)
    marks = Marks()
    ctx = SimpleNamespace(on_gpu=True, o=SimpleNamespace(gpu_timeline=True),
                          task=SimpleNamespace(setup_marks=marks), launches=None)
    with pytest.raises(RuntimeError):
        with measure.GpuSeries(ctx) as series:  # type: ignore[arg-type]
            assert marks.timeline is series.timeline and marks._recording
            raise RuntimeError("the candidate failed in its third timed run")
    assert stopped == [True]
    assert marks.timeline is None and not marks._recording
    # Read as usual, it stops once.
    with measure.GpuSeries(ctx) as series:  # type: ignore[arg-type]
        series.facts()
    assert stopped == [True, True]
