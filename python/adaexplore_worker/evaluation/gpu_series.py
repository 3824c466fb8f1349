"""The windows of the timed runs on the GPU's own timeline (timing/gpu_timeline.py), per series
(candidate, reference, expert, compiled_reference): where the profile asks for the timeline on a
GPU, a timed phase of measure.py starts one here, keeps the window of each run a series kept, and
gets each series' GPU times beside its events' (`candidate_gpu_ms`, ...) when it stops. Where the
task's call makes its own inputs, its setup calls' marks (timing/setup_marks.py) are recorded on
the timeline too, and each series gets the operator's own GPU time.
"""

from __future__ import annotations

import collections
import contextlib
from typing import Any

import torch

from ..timing import gpu_timeline
from ..timing.timing import Timed
from .context import Context
from .trace import kind_of


class GpuSeries:
    """The windows of the timed runs each series kept, on the GPU timeline of one timed phase
    (started here, when the profile asks for one on a GPU), and their GPU times once it stops."""

    def __init__(self, ctx: Context) -> None:
        self.timeline: gpu_timeline.Timeline | None = None
        self.missing: str | None = None  # Why there is no timeline where one was asked for.
        self.wanted = ctx.on_gpu and ctx.o.gpu_timeline
        # A task whose call makes its own inputs: its setup calls are noted on the timeline.
        self.marks = ctx.task.setup_marks if ctx.task is not None else None
        self._recording = contextlib.ExitStack()
        if self.wanted:
            self.missing = gpu_timeline.available()
            if self.missing is None:
                self.timeline = gpu_timeline.Timeline()
                self.timeline.start(lambda: _warm(ctx))
                if self.marks is not None:
                    own = ctx.launches.own_kernel_names if ctx.launches is not None else set
                    self.timeline.own = lambda name: kind_of(name, own()) == "own"
                    self.marks.timeline = self.timeline
                    self._recording.enter_context(self.marks.recording())
        self.windows: dict[str, list[int | None]] = {}

    def __enter__(self) -> GpuSeries:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """What facts() stops, where a failed timed phase never read it. Nothing once it ran."""
        try:
            self._stop()
        except Exception:  # noqa: BLE001 - CUPTI's failure: nothing was to be read anyway.
            pass

    def _stop(self) -> gpu_timeline.Reading | None:
        """Stops the marks' ranges on the timeline, then CUPTI's recording: its reading, or None
        where no timeline was recorded (or it was stopped already)."""
        self._recording.close()
        if self.marks is not None:
            self.marks.timeline = None
        timeline, self.timeline = self.timeline, None
        return timeline.stop() if timeline is not None else None

    def keep(self, series: str, timed: Timed) -> None:
        """A kept timed run of `series` (candidate, reference, expert, compiled_reference)."""
        if self.wanted:
            self.windows.setdefault(series, []).append(timed.window)

    def trim(self, series: str, first: int) -> None:
        """Drops the first runs of `series` (its warm-ups, where it keeps every run)."""
        if series in self.windows:
            self.windows[series] = self.windows[series][first:]

    def facts(self) -> dict[str, Any]:
        """Stops the timeline: each series' GPU times in milliseconds (None for a run that
        launched no GPU work), the work outside every window, or why there are none."""
        if not self.wanted:
            return {}
        reading = self._stop() or gpu_timeline.Reading(lost=self.missing)
        if reading.lost:
            return {"gpu_timeline_lost": reading.lost[:300]}
        out: dict[str, Any] = {"gpu_outside_us": round(reading.outside_ns / 1e3, 3),
                               "gpu_outside_records": reading.outside_records}
        for series, windows in self.windows.items():
            out[f"{series}_gpu_ms"] = [
                round(reading.spans[w].span_ns / 1e6, 6)
                if w is not None and reading.spans[w].records else None for w in windows]
        if self.marks is not None:
            out["gpu_setup"] = {"intact": self.marks.intact}
            for series, windows in self.windows.items():
                out[f"{series}_operator_gpu_ms"] = [
                    round(reading.spans[w].operator_ns / 1e6, 6)
                    if w is not None and reading.spans[w].operator_records else None
                    for w in windows]
                kernels: collections.Counter[str] = collections.Counter()
                for w in windows:
                    kernels.update(reading.setup_kernels.get(w, {}) if w is not None else {})
                out["gpu_setup"][f"{series}_kernels"] = dict(sorted(kernels.items())[:100])
        return out


def _warm(ctx: Context) -> None:
    """A little GPU work, and the device synchronised (the timeline's start)."""
    torch.zeros(1, device=ctx.device).add_(1)
    torch.cuda.synchronize(ctx.device)
