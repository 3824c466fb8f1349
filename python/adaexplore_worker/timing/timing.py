"""Timing one call of a model.

GPU: CUDA events on the current stream, the way triton.testing.do_bench times: the L2 flush (a
write over a buffer larger than the cache) is enqueued first, so the GPU is busy with it while the
host enqueues the call, and the window holds the call's GPU time rather than Python's launch
latency. After the end event the whole device is synchronised and the host wall time of the call
is kept beside the event time: work the call left on other streams (or that ran outside the
stream) shows up as wall time the events did not see, which the C++ side checks. The wall time
is counted from the head start's end on the GPU (an event before the flush, its elapsed time to
the start event taken off the host's time from the flush's launch), so a grown spin's remainder is
not in it. So does the tail: the host first waits for the end event alone, then for the whole
device; on an honest call the device is idle by then and the second wait returns at once (a few
microseconds, as for the reference), while work left on a side stream keeps it busy for as long
as that work runs on. Work the call starts on a side stream that does not wait for the timed one
may instead run *during* the head start, which it slows (the two share the SMs): each run's head
start on the GPU over what it was planned to take (`Timed.head_over_ms`) says so, since an honest
call's work is queued behind the start event and cannot touch it.

The flush is the run's head start. The host's time from the flush's launch to the end event's
says whether the host outlasted it (the GPU then waited for the host inside the window):
head_start.py counts such runs and, with a cap from the C++ side, grows a spin after the flush
(torch.cuda._sleep) and keeps only the runs the head start covered (`Timed.kept`).

With a GPU timeline (gpu_timeline.py), each call is also a window on CUPTI's activity records:
the GPU's own time of the call's work, which measure.py reports beside the events' time.

CPU (Triton's interpreter): perf_counter around the call. Such times are reported but are not
meaningful as kernel performance.
"""

from __future__ import annotations

import time
from typing import Any, Callable, NamedTuple

import torch

from .gpu_timeline import Timeline
from .head_start import HeadStart

L2_FLUSH_BYTES = 512 << 20  # Comfortably above the H200's 60 MiB L2 (and any current GPU's).
# Bound before any candidate is imported, and called only through these names: a candidate that
# patches one of them (even one that puts the original back when it is called) cannot reach the
# timer, and the identity guard then finds its patch still in place.
_perf_counter = time.perf_counter
_synchronize = torch.cuda.synchronize
_Event = torch.cuda.Event
_record = torch.cuda.Event.record
_elapsed_time = torch.cuda.Event.elapsed_time
_event_synchronize = torch.cuda.Event.synchronize
_zero = torch.Tensor.zero_
_sleep = torch.cuda._sleep
_CALIBRATION_CYCLES = 1_000_000  # About 0.5 ms of spin at the H200's boost clock.


class Timed(NamedTuple):
    out: Any
    ms: float  # The stream's events (the CPU: perf_counter).
    wall_ms: float  # Host wall time from the head start's end to the device-wide synchronise's.
    tail_ms: float  # The device-wide synchronise once the end event was reached (GPU; else 0).
    kept: bool = True  # False: the host outlasted the head start while it could still grow.
    window: int | None = None  # The call's window on the GPU timeline, when one is recorded.
    host_ms: float = 0.0  # The host's time in the call, from entering it to its return.
    # The head start's time on the GPU (head event to start event) over the flush and spin it
    # was planned to take: work of the call that ran before its window slows it.
    head_over_ms: float = 0.0


class Timer:
    def __init__(self, device: torch.device, l2_flush: bool, head_start_max_us: float = 0.0,
                 timeline: Timeline | None = None) -> None:
        """With a `timeline` (started by the caller), each timed call is a window on it."""
        self.device = device
        self.on_gpu = device.type == "cuda"
        self.timeline = timeline if self.on_gpu else None
        self._flush = None
        flush_us = 0.0
        if self.on_gpu and l2_flush:
            self._flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.uint8, device=device)
            _zero(self._flush)  # The first write may pay for the pages; the second is timed.
            flush_us = 1e3 * self._device_ms(lambda: _zero(self._flush))
        self.head_start = HeadStart(flush_us, head_start_max_us if self.on_gpu else 0.0)
        self._cycles_per_us = 0.0

    def facts(self) -> dict[str, float | int]:
        """What the head start says of the runs this timer made (GPU only; nothing on a CPU)."""
        return self.head_start.facts() if self.on_gpu else {}

    def _device_ms(self, work: Callable[[], Any]) -> float:
        _synchronize(self.device)
        start = _Event(enable_timing=True)
        end = _Event(enable_timing=True)
        _record(start)
        work()
        _record(end)
        _event_synchronize(end)
        return float(_elapsed_time(start, end))

    def _spin(self) -> None:
        """The head start's spin after the flush, as long as head_start says (none at first)."""
        if self.head_start.spin_us > 0 and self._cycles_per_us:
            _sleep(int(self.head_start.spin_us * self._cycles_per_us))

    def _calibrate(self) -> None:
        """The spin's cycles per microsecond, measured once the head start first needs a spin
        (between runs, never inside one)."""
        if self.head_start.spin_us > 0 and not self._cycles_per_us:
            self._cycles_per_us = _CALIBRATION_CYCLES / max(
                1.0, 1e3 * self._device_ms(lambda: _sleep(_CALIBRATION_CYCLES)))

    def flush(self) -> None:
        """Empties the L2 cache (its flush), as before each timed run; nothing without one."""
        if self._flush is not None:
            _zero(self._flush)
            _synchronize(self.device)

    def time(self, fn: Callable[..., Any], args: list[Any]) -> Timed:
        """Runs fn(*args) once, timed."""
        if not self.on_gpu:
            t0 = _perf_counter()
            out = fn(*args)
            wall = (_perf_counter() - t0) * 1e3
            return Timed(out, wall, wall, 0.0, host_ms=wall)
        _synchronize(self.device)  # Nothing earlier may run inside the window.
        head = _Event(enable_timing=True)
        start = _Event(enable_timing=True)
        end = _Event(enable_timing=True)
        planned_ms = self.head_start.head_us / 1e3
        launched = _perf_counter()  # The head start's launch.
        _record(head)
        if self._flush is not None:
            _zero(self._flush)
        self._spin()
        _record(start)
        t0 = _perf_counter()
        if self.timeline is None:
            out = fn(*args)
            window = None
        else:
            self.timeline.opened()
            out = fn(*args)
            window = self.timeline.closed()
        returned = _perf_counter()
        _record(end)
        host_us = (_perf_counter() - launched) * 1e6
        _event_synchronize(end)  # The timed stream's work is done.
        t1 = _perf_counter()
        _synchronize(self.device)  # Device-wide: every stream the call used.
        t2 = _perf_counter()
        kept = self.head_start.observe(host_us)
        self._calibrate()
        # The GPU was idle at the head start's launch, so it began the head start then (give or
        # take the launch latency, which the wall time keeps) and the window opened its length on.
        head_ms = float(_elapsed_time(head, start))
        wall_ms = (t2 - launched) * 1e3 - head_ms
        return Timed(out, float(_elapsed_time(start, end)), wall_ms, (t2 - t1) * 1e3,
                     kept=kept, window=window, host_ms=(returned - t0) * 1e3,
                     head_over_ms=head_ms - planned_ms)
