"""Timing one call of a model.

GPU: CUDA events on the current stream, the way triton.testing.do_bench times: the L2 flush (a
write over a buffer larger than the cache) is enqueued first, so the GPU is busy with it while the
host enqueues the call, and the window holds the call's GPU time rather than Python's launch
latency. After the end event the whole device is synchronised and the host wall time of the call
is kept beside the event time: work the call left on other streams (or that ran outside the
stream) shows up as wall time the events did not see, which the C++ side checks.

CPU (Triton's interpreter): perf_counter around the call. Such times are reported but are not
meaningful as kernel performance.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import torch

L2_FLUSH_BYTES = 512 << 20  # Comfortably above the H200's 60 MiB L2 (and any current GPU's).
# Bound before any candidate is imported, and called only through these names: a candidate that
# patches one of them (even one that puts the original back when it is called) cannot reach the
# timer, and the identity guard then finds its patch still in place.
_perf_counter = time.perf_counter
_synchronize = torch.cuda.synchronize
_Event = torch.cuda.Event
_record = torch.cuda.Event.record
_elapsed_time = torch.cuda.Event.elapsed_time
_zero = torch.Tensor.zero_


class Timer:
    def __init__(self, device: torch.device, l2_flush: bool) -> None:
        self.device = device
        self.on_gpu = device.type == "cuda"
        self._flush = None
        if self.on_gpu and l2_flush:
            self._flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.uint8, device=device)

    def time(self, fn: Callable[..., Any], args: list[Any]) -> tuple[Any, float, float]:
        """Runs fn(*args) once; returns (output, milliseconds, host wall milliseconds)."""
        if not self.on_gpu:
            t0 = _perf_counter()
            out = fn(*args)
            wall = (_perf_counter() - t0) * 1e3
            return out, wall, wall
        _synchronize(self.device)  # Nothing earlier may run inside the window.
        if self._flush is not None:
            _zero(self._flush)
        start = _Event(enable_timing=True)
        end = _Event(enable_timing=True)
        _record(start)
        t0 = _perf_counter()
        out = fn(*args)
        _record(end)
        _synchronize(self.device)  # Device-wide: every stream the call used.
        wall = (_perf_counter() - t0) * 1e3
        return out, float(_elapsed_time(start, end)), wall
