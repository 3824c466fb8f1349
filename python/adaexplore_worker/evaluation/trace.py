"""Kernel trace: which GPU kernels one call of the candidate launched, and whose they are.

One call runs under the torch profiler (CUPTI, CUDA activity only); its Chrome trace gives every
kernel's name and device time. Each kernel is sorted into one of three kinds:

  own      a kernel the candidate launched (a Triton kernel compiled from its file, as the launch
           hooks of launches.py saw it, or a `__global__` function of the CUDA C++ it built), or
           one nobody recognises (an unknown name counts for the candidate: the check fails
           open). A launched name claims a traced kernel only as that kernel's own name (`name`,
           `name(...)`, `void ns::name<...>(...)`), never inside a PyTorch namespace: a kernel
           called `elementwise_kernel` does not make `at::native::elementwise_kernel<...>` the
           candidate's;
  pytorch  PyTorch's and its libraries' compute kernels (aten, cuBLAS/cuBLASLt, cuDNN, CUTLASS,
           Inductor's generated Triton kernels);
  neutral  copies, fills and memsets (`.contiguous()`, `torch.zeros`), which any kernel may need.

The call's window on the GPU is bounded by two spins (torch.cuda._sleep) on the caller's stream:
a head start before the call (about half a millisecond, which keeps that stream busy while the
host launches the call, as the L2 flush does in the timed runs) and a marker right after it
returns. The call's work (kernels, copies, fills) belongs between the head start's end and the
marker's start. Work that ran outside was on a stream the caller never waits for: after the
marker (left running), or during the head start (started without waiting for the caller's
stream, as work hidden under the timed runs' L2 flush would be). How long it ran outside is
`escaped_us`, how many did `escaped_kernels`: the C++ side's stream_escape check reads them.
Neither spin counts among the call's kernels. The window holds only if the host had launched
the marker before the head start ended: then the marker starts right as the last work it may
have waited for ends (the caller's stream's, or a side stream's that the caller joined). When
it starts later (a call whose host side outlasts the head start), the call is traced again with
a head start twice as long, up to 8x; a window that never holds gives no escape figure (None).

The worker only reports; the C++ side (src/eval/classify.cc) decides what the figures mean.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import tempfile
from dataclasses import dataclass
from typing import Any, Callable

import torch
from torch.profiler import ProfilerActivity, profile

from ..correctness import inputs
from ..protocol.facts import Status
from ..timing.gpu_timeline import union_length
from ..timing.setup_marks import Marks
from ..timing.timing import Timer
from .context import Context
from .runtime_checks import check_identities
from .trials import all_passed

# Names of PyTorch's and its libraries' kernels. A candidate's own name always wins over these.
_PYTORCH = re.compile(
    r"at::|at_cuda_detail|c10::|\bcunn_|softmax_warp|cublas|cutlass|xmma|nvjet|gemm|gemv|"
    r"cudnn|implicit_convolve|winograd|fft|flash_fwd|fmha|\bcub::|thrust::|"
    r"elementwise_kernel|reduce_kernel|triton_(poi|red|per|tem)_|^sm\d+_|^ampere_|^volta_|"
    r"^turing_|^hopper_", re.IGNORECASE)
_NEUTRAL = re.compile(r"copy|fill|memset|memcpy|CatArray", re.IGNORECASE)
_SPIN = re.compile(r"\bspin_kernel\b")  # torch.cuda._sleep: the head start and the marker.
_GPU_WORK = ("kernel", "gpu_memcpy", "gpu_memset")
_HEAD_START_CYCLES = 1_000_000  # About 0.5 ms at the H200's boost clock.
_HEAD_START_TRIES = 4  # 1x, 2x, 4x, 8x.
_QUEUED_GAP_US = 3.0  # A marker already queued starts within this of the stream's last work.
def _named(name: str, kernel: str) -> bool:
    """Whether the traced kernel `name` is the kernel `kernel`: Triton's plain name, or a demangled
    C++ name with optional return type, namespaces (none of PyTorch's), template and arguments."""
    m = re.match(rf"(?:void\s+)?((?:[A-Za-z_]\w*::)*){re.escape(kernel)}(?:$|[(<\s])", name)
    return m is not None and not _PYTORCH.search(m.group(1))


def kind_of(name: str, own: set[str]) -> str:
    if any(_named(name, n) for n in own):
        return "own"
    if _NEUTRAL.search(name) and not re.search(r"gemm|conv", name, re.IGNORECASE):
        return "neutral"
    return "pytorch" if _PYTORCH.search(name) else "own"


def trace_call(call: Callable[[], Any], own: set[str], device: torch.device,
               before: Callable[[], None] = lambda: None,
               marks: Marks | None = None) -> dict[str, Any]:
    """Runs call() once under the profiler (before() ahead of each try: the L2 flush); returns
    the kernels it launched (name, kind, device microseconds, merged by name), the microseconds
    per kind and the call's kernel time (`busy_us`). With the task's setup `marks`, the host's
    activity is traced too: the kernel time of the work not launched in a setup range is
    `operator_us`, and the kernels' microseconds per kind that were launched in one
    `setup_kernel_us` (setup_marks.py)."""
    caller = torch.cuda.current_stream(device)
    activities = [ProfilerActivity.CUDA] + ([ProfilerActivity.CPU] if marks else [])
    for attempt in range(_HEAD_START_TRIES):
        cycles = _HEAD_START_CYCLES << attempt
        before()
        with tempfile.TemporaryDirectory(prefix="adx-trace-") as scratch:
            path = os.path.join(scratch, "trace.json")
            with profile(activities=activities) as prof:
                torch.cuda._sleep(cycles)  # The head start (see the module's docstring).
                with marks.recording() if marks else contextlib.nullcontext():
                    call()
                with torch.cuda.stream(caller):
                    torch.cuda._sleep(1)  # The marker.
                torch.cuda.synchronize(device)
            prof.export_chrome_trace(path)
            with open(path) as f:
                events = json.load(f).get("traceEvents", [])
        setup, traced = setup_launches(events, marks.name) if marks else (None, 0)
        work = [e for e in events if e.get("ph") == "X" and e.get("cat") in _GPU_WORK]
        if setup is not None:  # The candidate's own kernels are never setup, wherever launched.
            setup -= {_correlation(e) for e in work if e.get("cat") == "kernel"
                      and kind_of(str(e.get("name", "")), own) == "own"}
        window = escaped_work(work, setup)
        if window.held is not False:  # Held, or no window at all: tracing again cannot help.
            break
    kernels: dict[str, dict[str, Any]] = {}
    longest: dict[str, float] = {}
    in_setup = {"own": 0.0, "pytorch": 0.0, "neutral": 0.0}  # Kernels launched in setup ranges.
    setup_kernels: dict[str, int] = {}  # Their names and launches.
    for e in work:
        if e.get("cat") != "kernel":
            continue
        name = str(e.get("name", ""))
        entry = kernels.setdefault(name, {"name": name[:200], "kind": kind_of(name, own),
                                          "us": 0.0, "launches": 0})
        us = float(e.get("dur", 0.0))
        entry["us"] += us
        entry["launches"] += 1
        if setup is not None and _correlation(e) in setup:
            in_setup[entry["kind"]] += us
            setup_kernels[name[:200]] = setup_kernels.get(name[:200], 0) + 1
        if us >= longest.get(name, -1.0):
            longest[name] = us
            entry.update(launch_shape(e.get("args") or {}))
    totals = {"own": 0.0, "pytorch": 0.0, "neutral": 0.0}
    for k in kernels.values():
        totals[k["kind"]] += k["us"]
    ranked = sorted(kernels.values(), key=lambda k: -k["us"])
    return {"kernels": ranked[:20], "kernel_count": len(kernels),
            "own_us": round(totals["own"], 3), "pytorch_us": round(totals["pytorch"], 3),
            "neutral_us": round(totals["neutral"], 3), "candidate_kernels": sorted(own)[:50],
            "escaped_us": round(window.escaped_us, 3) if window.held else None,
            "escaped_kernels": window.escaped_kernels if window.held else 0,
            "busy_us": round(window.busy_us, 3), "head_start_cycles": cycles,
            **({"operator_us": round(window.operator_us or 0.0, 3),
                "setup_ranges": {"opened": marks.opened, "traced": traced,
                                 "intact": marks.intact},
                "setup_kernel_us": {k: round(v, 3) for k, v in in_setup.items()},
                "setup_kernels": dict(sorted(setup_kernels.items())[:100])}
               if marks else {})}


def launch_shape(args: dict[str, Any]) -> dict[str, int]:
    """What the trace's CUPTI record says of one launch (its longest, per kernel): registers per
    thread, shared memory per block, threads per block and blocks in the grid, from which the
    C++ side computes its theoretical occupancy. A field CUPTI did not give is left out."""
    shape: dict[str, int] = {}
    for key, field in (("registers per thread", "registers"), ("shared memory", "shared_bytes")):
        if isinstance(args.get(key), (int, float)):
            shape[field] = int(args[key])
    for key, field in (("block", "block_threads"), ("grid", "grid_blocks")):
        dims = args.get(key)
        if isinstance(dims, list) and dims and all(isinstance(d, (int, float)) for d in dims):
            shape[field] = int(math.prod(int(d) for d in dims))
    return shape


@dataclass(frozen=True)
class Window:
    """What ran outside the call's window: `held` is None without one (no spins found), False
    when the marker was not queued before the head start ended (the escape figures then mean
    nothing). `busy_us`: how long the device was busy with the call's work inside the window
    (the union of its kernels', copies' and fills' intervals, so work overlapping on several
    streams counts once): the call's kernel time. `operator_us`: the same, of the work not
    launched in the task's setup ranges."""
    held: bool | None
    escaped_us: float = 0.0
    escaped_kernels: int = 0
    busy_us: float = 0.0
    operator_us: float | None = None


def escaped_work(work: list[dict[str, Any]], setup: set[int] | None = None) -> Window:
    """Removes the head start and the marker from `work` (the trace's kernels, copies and
    fills: the first and the last spin kernel launched, by correlation id; a candidate's own,
    launched during the call, come between); returns how long the rest ran outside the window
    between them (microseconds) and how many did. With `setup` (correlation ids of launches in
    the task's setup ranges), `operator_us` is the kernel time of the work not launched there."""
    spins = sorted((e for e in work
                    if e.get("cat") == "kernel" and _SPIN.search(str(e.get("name")))),
                   key=lambda e: (int((e.get("args") or {}).get("correlation", 0)),
                                  float(e.get("ts", 0.0))))
    if len(spins) < 2:
        spans = [(float(e.get("ts", 0.0)), float(e.get("ts", 0.0)) + float(e.get("dur", 0.0)))
                 for e in work]
        return Window(held=None, busy_us=union_length(spans), operator_us=None if setup is None
                      else union_length([span for span, e in zip(spans, work)
                                      if _correlation(e) not in setup]))
    head_start, marker = spins[0], spins[-1]
    work.remove(head_start)
    work.remove(marker)
    opens = float(head_start.get("ts", 0.0)) + float(head_start.get("dur", 0.0))
    closes = float(marker.get("ts", 0.0))
    # What the marker may have waited for: the call's last work on any stream that ended before
    # it started (the caller's stream may wait for a side stream it joined).
    waited_for = opens
    escaped_us, escaped = 0.0, 0
    inside: list[tuple[float, float]] = []
    operator: list[tuple[float, float]] = []
    for e in work:
        begin = float(e.get("ts", 0.0))
        end = begin + float(e.get("dur", 0.0))
        if end <= closes:
            waited_for = max(waited_for, end)
        outside = max(0.0, min(end, opens) - begin) + max(0.0, end - max(closes, begin))
        if outside > 0:
            escaped_us += outside
            escaped += 1
        inside.append((max(begin, opens), min(end, closes)))
        if setup is not None and _correlation(e) not in setup:
            operator.append(inside[-1])
    return Window(held=closes - waited_for <= _QUEUED_GAP_US, escaped_us=escaped_us,
                  escaped_kernels=escaped, busy_us=union_length(inside),
                  operator_us=None if setup is None else union_length(operator))


def setup_launches(events: list[dict[str, Any]], name: str) -> tuple[set[int], int]:
    """From a trace's events (Chrome trace, CPU and CUDA activity): the correlation ids of the
    launches (runtime or driver calls) made inside a range called `name` (the task's setup marks,
    setup_marks.py) on the range's own thread, and how many such ranges the trace holds."""
    ranges = [(float(e.get("ts", 0.0)), float(e.get("ts", 0.0)) + float(e.get("dur", 0.0)),
               e.get("tid")) for e in events
              if e.get("ph") == "X" and e.get("cat") == "user_annotation" and e.get("name") == name]
    setup: set[int] = set()
    for e in events:
        if e.get("ph") != "X" or e.get("cat") not in ("cuda_runtime", "cuda_driver"):
            continue
        correlation = _correlation(e)
        ts = float(e.get("ts", 0.0))
        if correlation is not None and any(tid == e.get("tid") and begin <= ts <= end
                                           for begin, end, tid in ranges):
            setup.add(correlation)
    return setup, len(ranges)


def _correlation(event: dict[str, Any]) -> int | None:
    value = (event.get("args") or {}).get("correlation")
    return value if isinstance(value, int) else None


def trace_phase(ctx: Context) -> None:
    """The trace phase: one more call, on the first trial's inputs, under the profiler: which
    kernels ran and whose they are. GPU only, and only for candidates that passed the trials;
    after timing, since the profiler (CUPTI) must not be loaded while anything is timed."""
    if not (ctx.on_gpu and ctx.o.kernel_trace and all_passed(ctx)):
        return
    ref = ctx.references[0]
    x = inputs.clone_inputs(ctx.make_inputs(ref["seed"], ref["base"]))
    assert ctx.launches is not None
    own = ctx.launches.own_kernel_names()
    raised: list[BaseException] = []

    def call() -> None:
        try:
            with torch.no_grad(), ctx.calls("the kernel trace"):
                ctx.model_new(*x)  # type: ignore[misc]
        except BaseException as e:  # noqa: BLE001 - the candidate's failure, judged below.
            raised.append(e)

    flush = Timer(ctx.device, ctx.o.l2_flush).flush  # Each call starts as a timed run does.
    try:
        found = trace_call(call, own, ctx.device, flush, _marks(ctx))
    except Exception as e:  # noqa: BLE001 - the profiler's failure is a note, not a verdict.
        ctx.facts["notes"].append(f"no kernel trace: {type(e).__name__}: {e}")
        found = None
    check_identities(ctx)
    if raised:  # It passed every trial on these inputs: failing now is a finding in itself.
        ctx.fail(Status.FORWARD_ERROR, raised[0], trial="kernel trace")
    if found is not None:
        ctx.facts["kernel_trace"] = found
        _trace_reference(ctx, flush)


def _trace_reference(ctx: Context, flush: Callable[[], None]) -> None:
    """The reference's call on the same inputs, traced the same way: its kernel time, for the
    kernel-scope speedup (`reference_trace`)."""
    assert ctx.ref_model is not None
    model = ctx.ref_model

    def call() -> None:
        with torch.no_grad():
            model(*fresh)
    try:
        first = ctx.references[0]
        fresh = inputs.clone_inputs(ctx.make_inputs(first["seed"], first["base"]))
        found = trace_call(call, set(), ctx.device, flush, _marks(ctx))
    except Exception as e:  # noqa: BLE001 - the harness's own call: a note, not a verdict.
        ctx.facts["notes"].append(f"no kernel trace of the reference: {type(e).__name__}: {e}")
        return
    ctx.facts["reference_trace"] = {key: found[key] for key in (
        "kernels", "busy_us", "operator_us", "setup_ranges", "setup_kernel_us", "setup_kernels")
        if key in found}


def _marks(ctx: Context) -> Marks | None:
    return ctx.task.setup_marks if ctx.task is not None else None
