"""The GPU's own timeline of the timed runs: CUPTI's activity records of every kernel, copy and
fill, and of every launch (runtime and driver API calls, any thread), read through NVIDIA's
cupti-python while a timed phase runs under the exclusive lock.

Each timed call is a window on the host: CUPTI's timestamps just before the call and just after
it returns (`Timeline.window`). The call's GPU work is every record whose launch (on any thread)
started inside its window; its *span* is from that work's first start to its last end, on any
stream. The harness's own work (the L2 flush, the head start's spin, the events, new inputs,
re-validation) is launched outside every window, on the harness's thread, so it is never the
call's, and the head start keeps the stream busy while the host launches the call: the span is
the GPU's time, gaps the host leaves between launches inside it included. Work launched outside
every window by another thread (a thread the candidate started, running work before the window
or on the side) is `outside`: its GPU time and count, which the C++ side judges. Work whose
launch CUPTI did not record counts there too.

Where the task's call makes its own inputs (a TritonBench-G test: setup_marks.py), the harness's
marks note each setup call's range on the host (`Timeline.setup_range`): the work launched inside
one, on its thread, is the test's, never the operator's (but for the candidate's own kernels, which
are never setup, as in trace.py). A window's *operator* time (`Span.operator_ns`) is then how
long the GPU was busy with the rest (the union of its records' intervals), the traced call's
`operator_us` for every timed run. Not its span: the test calls the operator several times, with
its own Python between the calls, and Triton's launcher's host time around each launch; on an
H100 those gaps made the operator's spans 0.5-1.5 ms around 5-190 us of its kernels, and noisy
by 2-30%. So host work an operator does between its launches is not counted here (said in
docs/harness.md). The setup kernels' names are counted (`Reading.setup_kernels`), so that the
C++ side can check that both sides' tests set up the same.

What this module cannot see: anything on the harness's own thread between windows (a finalizer
of the candidate's running there would pass as the harness's); and, as for the events, a
candidate in this process can reach CUPTI itself. A timeline that lost records (CUPTI's buffers
full, its callbacks replaced, a window with no work at all) says so (`lost`), and then gives no
spans: the C++ side gives no GPU-scope number rather than one it cannot stand behind.

The worker only reports; src/eval/classify_speedup.cc decides what the figures mean.
"""

from __future__ import annotations

import bisect
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, NamedTuple

try:  # cupti-python (python/requirements.txt); without it, or without a GPU, no timeline.
    from cupti import cupti as _cupti
except ImportError:  # pragma: no cover - the requirements install it.
    _cupti = None

_BUFFER_BYTES = 8 << 20
_native_id = threading.get_native_id  # Bound before any candidate is imported.
if _cupti is not None:
    _Kind = _cupti.ActivityKind
    _WORK_KINDS = (_Kind.CONCURRENT_KERNEL, _Kind.MEMCPY, _Kind.MEMSET)
    _API_KINDS = (_Kind.RUNTIME, _Kind.DRIVER)
    # Bound before any candidate is imported (as timing.py binds its clocks).
    _timestamp = _cupti.get_timestamp
    _enable = _cupti.activity_enable
    _disable = _cupti.activity_disable
    _flush_all = _cupti.activity_flush_all
    _register = _cupti.activity_register_callbacks
    _set_thread_id_type = _cupti.set_thread_id_type
    _SYSTEM_THREAD_IDS = _cupti.ActivityThreadIdType.SYSTEM


class Work(NamedTuple):
    """One record of GPU work: nanoseconds on CUPTI's clock; `kernel` False for a copy or fill."""
    start: int
    end: int
    correlation: int
    name: str
    kernel: bool = True


class Launch(NamedTuple):
    """One API call that may launch work: when it started, its correlation id and thread."""
    start: int
    correlation: int
    thread: int


class SetupRange(NamedTuple):
    """One setup call of the task's test, on the host: CUPTI's clock, the calling thread."""
    start: int
    end: int
    thread: int


@dataclass
class Span:
    """One window's GPU work: `span_ns` from its first start to its last end (0 without work),
    `busy_ns` the union of its records' intervals, `records` how many; `operator_ns` (busy) and
    `operator_records` the same of the work not launched in a setup range (see the module's
    docstring)."""
    span_ns: int = 0
    busy_ns: int = 0
    records: int = 0
    operator_ns: int = 0
    operator_records: int = 0


@dataclass
class Reading:
    """What the timeline says of a timed phase: one Span per window, in the order they were
    opened; the GPU time and count of work launched outside every window by another thread (or
    by a launch CUPTI did not record); why the spans cannot be trusted, if they cannot."""
    spans: list[Span] = field(default_factory=list)
    outside_ns: int = 0
    outside_records: int = 0
    lost: str | None = None
    setup_kernels: dict[int, dict[str, int]] = field(default_factory=dict)  # Window -> names.


def available() -> str | None:
    """None when a timeline can be read here, else why not."""
    if _cupti is None:
        return "cupti-python is not installed"
    try:
        _timestamp()
    except Exception as e:  # noqa: BLE001 - CUPTI's own error (no driver) says why.
        return f"CUPTI unavailable: {e}"
    return None


class Timeline:
    """Activity records from start() to stop(); one window per timed call."""

    def __init__(self) -> None:
        self._work: list[Work] = []
        self._launches: list[Launch] = []
        self._windows: list[tuple[int, int]] = []
        self._setup: list[SetupRange] = []
        self.own: Callable[[str], bool] = lambda name: False  # Kernels never setup.
        self._buffers = 0
        self._thread = threading.get_native_id()
        self._open: int | None = None
        self._running = False

    def _requested(self) -> tuple[int, int]:
        return _BUFFER_BYTES, 0

    def _completed(self, activities: Any) -> None:
        """CUPTI hands a full (or flushed) buffer: only plain values are kept, never the
        records, which live in the buffer."""
        self._buffers += 1
        for a in activities:
            if a.kind in _WORK_KINDS:
                kernel = a.kind == _Kind.CONCURRENT_KERNEL
                name = a.name if kernel else ("memcpy" if a.kind == _Kind.MEMCPY else "memset")
                self._work.append(Work(int(a.start), int(a.end), int(a.correlation_id), name,
                                       kernel))
            elif a.kind in _API_KINDS:
                self._launches.append(Launch(int(a.start), int(a.correlation_id),
                                             int(a.thread_id)))

    def start(self, warm: Callable[[], None] = lambda: None) -> None:
        """Starts recording (system thread ids, so the harness's thread is known); `warm` then
        launches some work, which a forced flush hands back, so that CUPTI's own threads and
        buffers start here, before any timed run, not inside one (where a new thread would be
        the candidate's)."""
        _set_thread_id_type(_SYSTEM_THREAD_IDS)
        _register(self._requested, self._completed)
        for kind in _WORK_KINDS + _API_KINDS:
            _enable(kind)
        self._running = True
        warm()
        _flush_all(1)
        self._work.clear()
        self._launches.clear()

    def opened(self) -> None:
        """The call starts now (the last thing before it)."""
        self._open = _timestamp()

    def closed(self) -> int:
        """The call returned (the first thing after it): the window's index."""
        end = _timestamp()
        assert self._open is not None
        self._windows.append((self._open, end))
        self._open = None
        return len(self._windows) - 1

    @contextmanager
    def setup_range(self) -> Iterator[None]:
        """A setup call of the task's test runs inside (setup_marks.Marks)."""
        start = _timestamp()
        try:
            yield
        finally:
            self._setup.append(SetupRange(start, _timestamp(), _native_id()))

    def stop(self) -> Reading:
        """Stops recording and reads every window."""
        if not self._running:
            return Reading(lost="the timeline was not started")
        self._running = False
        try:
            _flush_all(1)
            for kind in _WORK_KINDS + _API_KINDS:
                _disable(kind)
            _flush_all(1)
        except Exception as e:  # noqa: BLE001 - CUPTI's failure: no spans, and why.
            return Reading(lost=f"CUPTI failed: {e}")
        return read(self._windows, self._work, self._launches, self._thread, self._setup,
                    self.own)


def read(windows: list[tuple[int, int]], work: list[Work], launches: list[Launch],
         harness_thread: int, setup: list[SetupRange] | None = None,
         own: Callable[[str], bool] = lambda name: False) -> Reading:
    """Attributes each record of work to the window its launch started in (see the module's
    docstring); the rest, launched by another thread than the harness's or by no recorded
    launch, is outside. With the test's `setup` ranges, a window's work launched in one (on its
    thread; a kernel `own` says is the candidate's excepted) is setup, the rest the operator's."""
    reading = Reading(spans=[Span() for _ in windows])
    if windows and not work and not launches:
        reading.lost = "CUPTI recorded nothing during the timed runs"
        return reading
    opens = [w[0] for w in windows]
    launch_of = {launch.correlation: launch for launch in launches}
    per_window: list[list[Work]] = [[] for _ in windows]
    for w in work:
        launch = launch_of.get(w.correlation)
        index = _window_of(windows, opens, launch.start) if launch is not None else None
        if index is not None:
            per_window[index].append(w)
        elif launch is None or launch.thread != harness_thread:
            reading.outside_ns += max(0, w.end - w.start)
            reading.outside_records += 1
    in_setup = _SetupIndex(setup or [])
    for index, (span, records) in enumerate(zip(reading.spans, per_window)):
        if not records:
            continue
        span.records = len(records)
        span.span_ns = max(r.end for r in records) - min(r.start for r in records)
        span.busy_ns = union_length([(r.start, r.end) for r in records])
        operator: list[Work] = []
        for r in records:
            if in_setup.holds(launch_of[r.correlation]) and not (r.kernel and own(r.name)):
                names = reading.setup_kernels.setdefault(index, {})
                names[r.name[:200]] = names.get(r.name[:200], 0) + 1
            else:
                operator.append(r)
        span.operator_records = len(operator)
        span.operator_ns = union_length([(r.start, r.end) for r in operator])
    return reading


class _SetupIndex:
    """The setup ranges of each thread, merged where they nest or touch, for lookups by time."""

    def __init__(self, setup: list[SetupRange]) -> None:
        self.merged: dict[int, list[tuple[int, int]]] = {}
        for r in sorted(setup):
            spans = self.merged.setdefault(r.thread, [])
            if spans and r.start <= spans[-1][1]:
                spans[-1] = (spans[-1][0], max(spans[-1][1], r.end))
            else:
                spans.append((r.start, r.end))
        self.starts = {t: [b for b, _ in spans] for t, spans in self.merged.items()}

    def holds(self, launch: Launch) -> bool:
        """Whether `launch` started inside a setup range on its own thread."""
        spans = self.merged.get(launch.thread)
        if not spans:
            return False
        i = bisect.bisect_right(self.starts[launch.thread], launch.start) - 1
        return i >= 0 and launch.start <= spans[i][1]


def _window_of(windows: list[tuple[int, int]], opens: list[int], t: int) -> int | None:
    i = bisect.bisect_right(opens, t) - 1
    return i if i >= 0 and windows[i][0] <= t <= windows[i][1] else None


def union_length(intervals: list[tuple[Any, Any]]) -> Any:
    """The length of the union of (begin, end) intervals; empty ones count nothing."""
    total, reach = 0, None
    for begin, end in sorted(i for i in intervals if i[1] > i[0]):
        if reach is None or end > reach:
            total += end - (begin if reach is None else max(begin, reach))
            reach = end
    return total
