"""Timing one call of a model.

GPU: CUDA events around the call. With `device_sync` (the strict profile) the end event is
recorded only after a device-wide synchronize, so work the call left on other streams is inside
the window; the host-side wall time of the same window is reported beside it. The L2 flush (a
write over a buffer larger than the cache) runs before the window opens.

CPU (Triton's interpreter): perf_counter around the call. Such times are reported but are not
meaningful as kernel performance.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import torch

L2_FLUSH_BYTES = 512 << 20  # Comfortably above the H200's 60 MiB L2 (and any current GPU's).


class Timer:
    def __init__(self, device: torch.device, l2_flush: bool, device_sync: bool) -> None:
        self.device = device
        self.on_gpu = device.type == "cuda"
        self.device_sync = device_sync
        self._flush = None
        if self.on_gpu and l2_flush:
            self._flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.uint8, device=device)

    def time(self, fn: Callable[..., Any], args: list[Any]) -> tuple[Any, float, float]:
        """Runs fn(*args) once; returns (output, milliseconds, host wall milliseconds)."""
        if not self.on_gpu:
            t0 = time.perf_counter()
            out = fn(*args)
            wall = (time.perf_counter() - t0) * 1e3
            return out, wall, wall
        if self._flush is not None:
            self._flush.zero_()
        torch.cuda.synchronize(self.device)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        t0 = time.perf_counter()
        start.record()
        out = fn(*args)
        if self.device_sync:
            torch.cuda.synchronize(self.device)
        end.record()
        end.synchronize()
        torch.cuda.synchronize(self.device)
        wall = (time.perf_counter() - t0) * 1e3
        return out, float(start.elapsed_time(end)), wall
