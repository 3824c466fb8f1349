"""The timing phase, under the exclusive GPU lock: the candidate interleaved with the reference on
fresh inputs every run (new values always; every other run in the previous run's buffers),
every timed output checked again (`time_candidate`); and the task's own
baseline, eager and torch.compile'd (`time_baseline`). One loop (`time_series`) times any model
alone. The task's expert kernel, where it has one (`prepare_expert`), is made ready in the
reference phase, before the candidate is imported, and timed like the reference: interleaved
with the candidate, each run on its own copy of the run's inputs at a random place (it may write
over them), so that both meet the same conditions; without interleaving, on its own after it.
Where the profile asks for the GPU's own timeline (`gpu_timeline`), every timed run of every
series is also a window on it (gpu_series.py), and each series gets its GPU times beside its
events' (`candidate_gpu_ms`, ...). Reads and fills a context.Context; timing.Timer takes the
measurements."""

from __future__ import annotations

import random
from typing import Any

import torch

from ..correctness import check, inputs
from ..protocol.facts import Status
from ..timing.stopping import Stopper
from ..timing.timing import Timed, Timer
from .context import Context
from .gpu_series import GpuSeries
from .runtime_checks import check_identities, enumerate_threads, note_threads, thread_count


def _timer(ctx: Context, gpu: GpuSeries | None = None) -> Timer:
    """The timed phases' timer: the L2 flush and the head start's cap the profile sets; each
    call a window on `gpu`'s timeline, where it has one."""
    return Timer(ctx.device, ctx.o.l2_flush, ctx.o.head_start_max_us,
                 gpu.timeline if gpu is not None else None)


def rng_for(ctx: Context) -> random.Random:
    """The draws of the timed runs' inputs and order, from the job's seed."""
    return random.Random(ctx.o.seed * 7919 + 1)


def _clock(ctx: Context) -> dict[str, Any]:
    return {"clock": "cuda_event" if ctx.on_gpu else "perf_counter", "meaningful": ctx.on_gpu}


def time_series(ctx: Context, timer: Timer, model: Any, rng: random.Random,
                fixed: list[Any] | None = None,
                gpu: tuple[GpuSeries, str] | None = None) -> list[float]:
    """Warm-up and timed runs of `model` alone, each on fresh task inputs (or on `fixed`), as
    many as the profile's stopping rule asks: the timed runs' milliseconds (their windows kept
    in `gpu`'s series of that name, where given)."""
    return _series(ctx, timer, model, rng, fixed, gpu=gpu)[0]


def _series(ctx: Context, timer: Timer, model: Any, rng: random.Random,
            fixed: list[Any] | None, walls: list[float] | None = None,
            tails: list[float] | None = None, runs: int | None = None,
            gpu: tuple[GpuSeries, str] | None = None) -> tuple[list[float], str]:
    """time_series, with each run's host wall time and tail (timing.Timed) appended to `walls`
    and `tails`, and why it stopped; exactly `runs` timed runs when given."""
    warmup = ctx.o.warmup_runs
    stopper = Stopper(ctx.o) if runs is None else Stopper.fixed(ctx.o, runs)
    out: list[float] = []
    i, stopped = 0, None
    with torch.no_grad():
        while stopped is None:
            x = fixed if fixed is not None else ctx.make_inputs(rng.getrandbits(32), "task")
            timed = timer.time(model, x)
            ctx.gpu_busy_ms += timed.ms
            if i >= warmup and timed.kept:
                out.append(round(timed.ms, 6))
                if gpu is not None:
                    gpu[0].keep(gpu[1], timed)
                if walls is not None and tails is not None:
                    walls.append(round(timed.wall_ms, 6))
                    tails.append(round(timed.tail_ms, 6))
                stopped = stopper.done([out])
            i += 1
    return out, stopped


def compile_reference(ctx: Context, rng: random.Random) -> Any:
    """torch.compile(reference), compiled by one call; None (and a note) if that fails."""
    try:
        compiled = torch.compile(ctx.ref_model)
        with torch.no_grad():
            compiled(*ctx.make_inputs(rng.getrandbits(32), "task"))
        return compiled
    except Exception as e:  # noqa: BLE001
        ctx.facts["notes"].append(f"torch.compile baseline failed: {type(e).__name__}: {e}")
        return None


def time_compiled(ctx: Context, timer: Timer, rng: random.Random, compiled: Any,
                  gpu: GpuSeries | None = None) -> list[float] | None:
    try:
        return time_series(ctx, timer, compiled, rng,
                           gpu=(gpu, "compiled_reference") if gpu is not None else None)
    except Exception as e:  # noqa: BLE001
        ctx.facts["notes"].append(f"torch.compile baseline failed: {type(e).__name__}: {e}")
        return None


def prepare_expert(ctx: Context) -> None:
    """Imports the task's expert kernel (and lets it compile) and checks it once against the
    reference on fresh inputs, in a task phase: its import and compilation are neither the
    candidate's time nor its fault. One that does not import or fails is a note and no baseline;
    one that disagrees with the reference is timed all the same, and the facts say so."""
    expert = ctx.task.expert if ctx.task is not None else None
    if expert is None or not (ctx.o.measure and ctx.o.expert_baseline):
        return
    assert ctx.ref_model is not None
    o = ctx.o
    try:
        kernel = expert.build()
        x = ctx.make_inputs(o.seed * 7919 + 2, "task", on_device=True)
        with torch.no_grad():
            want = ctx.ref_model(*inputs.clone_inputs(x))
            got = kernel(*x)  # Last: an expert may write over its inputs.
        agrees, detail, error = _revalidate(got, want, o.criterion, o.atol, o.rtol)
        if ctx.on_gpu:
            torch.cuda.synchronize(ctx.device)
    except Exception as e:  # noqa: BLE001 - any failure means the same: no expert baseline.
        ctx.facts["notes"].append(
            f"expert baseline {expert.name} unavailable: {type(e).__name__}: {e}"[:500])
        return
    ctx.expert_kernel = kernel
    ctx.facts["expert"] = {"name": expert.name, "agrees": agrees,
                           "relative_error": round(error, 9), **detail}


def time_expert(ctx: Context, timer: Timer, rng: random.Random,
                gpu: GpuSeries | None = None) -> list[float] | None:
    """The expert kernel's timed runs, each on fresh inputs (it may write over them)."""
    if ctx.expert_kernel is None:
        return None
    try:
        return time_series(ctx, timer, ctx.expert_kernel, rng,
                           gpu=(gpu, "expert") if gpu is not None else None)
    except Exception as e:  # noqa: BLE001
        ctx.facts["notes"].append(f"expert baseline failed: {type(e).__name__}: {e}"[:500])
        ctx.facts.pop("expert", None)
        return None


def reuses_reference_timing(ctx: Context) -> bool:
    """Whether this job's reference is timed once per task and worker (the profile times it on
    its own, not interleaved, and allows reuse)."""
    o = ctx.o
    return (o.measure and not o.interleave_reference and o.reference_reuse_drift > 0
            and not o.baseline)


def times_reference_in_task_phase(ctx: Context, cached: bool) -> bool:
    """Whether the job that makes the task's references also times the reference there, before
    any candidate is imported: for later jobs to reuse (a `cached` entry), or for every judge
    (clean_reference_timing)."""
    o = ctx.o
    return o.measure and not o.baseline and (
        (cached and reuses_reference_timing(ctx)) or o.clean_reference_timing)


def time_reference_once(ctx: Context) -> dict[str, Any]:
    """The reference timed on its own, in the task's phases of the first job of a task on a
    worker (under the exclusive lock, before any candidate is imported): what later jobs of the
    task reuse while their check agrees with it (`_reference_series`)."""
    assert ctx.ref_model is not None
    with GpuSeries(ctx) as gpu:
        timer = _timer(ctx, gpu)
        walls: list[float] = []
        tails: list[float] = []
        fixed = ctx.make_inputs(ctx.seeds[0], "task")
        reference_ms, stopped = ctx.guard(Status.TASK_ERROR, lambda: _series(
            ctx, timer, ctx.ref_model, rng_for(ctx), fixed, walls, tails, gpu=(gpu, "reference")))
        stored = {"reference_ms": reference_ms, "reference_wall_ms": walls,
                  "reference_tail_ms": tails, "reference_stopped": stopped}
        stored.update({k: v for k, v in gpu.facts().items() if k.startswith("reference_")})
        return stored


def _reference_series(ctx: Context, timer: Timer, rng: random.Random, fixed: list[Any] | None,
                      samples: dict[str, list[float]], timing: dict[str, Any],
                      gpu: GpuSeries) -> None:
    """The reference's timed runs when it is not interleaved: the task's stored timing
    (time_reference_once) when a check of min_timed_runs runs finds its median within
    reference_reuse_drift of the stored one, else a whole series, as for every candidate
    without a stored timing."""
    stored = ctx.reference_timing
    if stored is not None and stored.get("reference_ms"):
        check = _series(ctx, timer, ctx.ref_model, rng, fixed,
                        runs=min(ctx.o.min_timed_runs, ctx.o.timed_runs))[0]
        then, now = _median(stored["reference_ms"]), _median(check)
        drift = abs(now / then - 1) if then > 0 else float("inf")
        reused = drift <= ctx.o.reference_reuse_drift
        timing["reference_check"] = {"runs": len(check), "median_ms": round(now, 6),
                                     "stored_median_ms": round(then, 6),
                                     "drift": round(drift, 6) if drift != float("inf") else None,
                                     "reused": reused}
        if reused:
            for key in ("reference_ms", "reference_wall_ms", "reference_tail_ms"):
                samples[key] = list(stored[key])
            for key in ("reference_gpu_ms", "reference_operator_gpu_ms"):
                if key in stored:  # Else the reference has no such GPU times here.
                    timing[key] = list(stored[key])
            timing["reference_stopped"] = stored["reference_stopped"]
            return
    samples["reference_ms"], timing["reference_stopped"] = _series(
        ctx, timer, ctx.ref_model, rng, fixed, samples["reference_wall_ms"],
        samples["reference_tail_ms"], gpu=(gpu, "reference"))


def _median(samples: list[float]) -> float:
    s = sorted(samples)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def time_baseline(ctx: Context, rng: random.Random, fixed: list[Any] | None,
                  compiled: Any) -> dict[str, Any]:
    """The task's own Model timed eagerly (and `compiled`, when there is one)."""
    with GpuSeries(ctx) as gpu:
        timer = _timer(ctx, gpu)
        reference_ms, stopped = ctx.guard(Status.TASK_ERROR, lambda: _series(
            ctx, timer, ctx.ref_model, rng, fixed, gpu=(gpu, "reference")))
        timing: dict[str, Any] = {
            "warmup_runs": ctx.o.warmup_runs, "timed_runs": len(reference_ms),
            "max_timed_runs": ctx.o.timed_runs, "stopped": stopped,
            "fresh_inputs": ctx.o.fresh_inputs_per_run, **_clock(ctx), "reference_ms": reference_ms}
        if compiled is not None:
            timing["compiled_reference_ms"] = time_compiled(ctx, timer, rng, compiled, gpu)
        expert = time_expert(ctx, timer, rng, gpu)
        if expert is not None:
            timing["expert_ms"] = expert
        timing.update(timer.facts())
        timing.update(gpu.facts())
        return timing


def time_candidate(ctx: Context) -> None:
    o = ctx.o
    assert ctx.ref_model is not None
    with GpuSeries(ctx) as gpu:
        timer = _timer(ctx, gpu)
        rng = rng_for(ctx)
        warmup, stopper = o.warmup_runs, Stopper(o)
        fresh, interleave, revalidate = (o.fresh_inputs_per_run, o.interleave_reference,
                                         o.revalidate_timed)
        spec = ctx.references[0]["spec"] if ctx.references[0]["base"] == "task" else None
        # One input set for whatever is timed on it: the candidate without fresh inputs, the
        # reference when it is not interleaved.
        fixed = None if fresh and interleave else ctx.make_inputs(ctx.seeds[0], "task")
        samples: dict[str, list[float]] = {"candidate_ms": [], "reference_ms": [],
                                           "candidate_wall_ms": [], "reference_wall_ms": [],
                                           "candidate_host_ms": [],
                                           "candidate_tail_ms": [], "reference_tail_ms": [],
                                           "candidate_head_over_ms": [],
                                           "reference_head_over_ms": []}
        expert = ctx.expert_kernel if interleave else None
        expert_ms: list[float] = []
        failures, mutated, checked = 0, 0, 0
        worst_error = 0.0  # The largest relative error of a re-validated timed output.
        previous: list[Any] | None = None  # The last run's candidate inputs.
        first_failure: dict[str, Any] | None = None

        def record(kind: str, i: int, timed: Timed, kept: bool) -> None:
            ctx.gpu_busy_ms += timed.ms
            if i >= warmup and kept:
                gpu.keep(kind, timed)
                samples[f"{kind}_ms"].append(round(timed.ms, 6))
                samples[f"{kind}_wall_ms"].append(round(timed.wall_ms, 6))
                samples[f"{kind}_tail_ms"].append(round(timed.tail_ms, 6))
                samples[f"{kind}_head_over_ms"].append(round(timed.head_over_ms, 6))
                if kind == "candidate":
                    samples["candidate_host_ms"].append(round(timed.host_ms, 6))

        # The series the stopping rule watches: what is timed run by run.
        watched = [samples["candidate_ms"]] + ([samples["reference_ms"]] if interleave else [])
        i, stopped = 0, None
        with torch.no_grad():
            while stopped is None:
                if i == warmup:
                    ctx.session.clocks()  # The zygote reads the GPU's clocks (clocks.py).
                if fresh:
                    x = ctx.make_inputs(rng.getrandbits(32), "task", on_device=True)
                    if spec is not None and inputs.InputSpec.of(x) != spec:
                        ctx.inputs_changed(f"timed run {i}")
                    # New values every run; every other run in the previous run's buffers, so a
                    # cache keyed by address serves stale outputs (caught below) whatever the
                    # allocator would have handed out, and fresh buffers in between.
                    cx = (inputs.refill(previous, x) if i % 2 else None) or inputs.clone_inputs(x)
                    previous = cx
                else:
                    x = cx = fixed
                if not interleave:
                    cand = _timed_candidate(ctx, timer, cx, i)
                    record("candidate", i, cand, cand.kept)
                    # The reference is timed on its own below; its output for these inputs is made
                    # untimed, for the re-validation.
                    ref_out = ctx.ref_model(*x) if revalidate and i >= warmup else None
                else:
                    # The expert before, between or after the pair (drawn only when there is one).
                    expert_at = rng.randrange(3) if expert is not None else -1
                    if expert_at == 0:
                        expert_ms.append(_timed_expert(ctx, timer, expert, x, gpu))
                    if rng.random() < 0.5:
                        ref = timer.time(ctx.ref_model, x)
                        if expert_at == 1:
                            expert_ms.append(_timed_expert(ctx, timer, expert, x, gpu))
                        cand = _timed_candidate(ctx, timer, cx, i)
                    else:
                        cand = _timed_candidate(ctx, timer, cx, i)
                        if expert_at == 1:
                            expert_ms.append(_timed_expert(ctx, timer, expert, x, gpu))
                        ref = timer.time(ctx.ref_model, x)
                    ref_out = ref.out
                    if expert_at == 2:
                        expert_ms.append(_timed_expert(ctx, timer, expert, x, gpu))
                if interleave:  # A pair is kept whole or not at all: the series stay paired.
                    record("candidate", i, cand, cand.kept and ref.kept)
                    record("reference", i, ref, cand.kept and ref.kept)
                out = cand.out
                if revalidate and i >= warmup:
                    checked += 1
                    ok, detail, error = _revalidate(out, ref_out, o.criterion, o.revalidate_atol,
                                                    o.revalidate_rtol)
                    worst_error = max(worst_error, error)
                    if fresh and not all(check.bitwise_equal(a, b) for a, b in zip(cx, x)):
                        mutated += 1
                        ok = False
                    if not ok:
                        failures += 1
                        first_failure = first_failure or {"run": i - warmup, **detail}
                out = cand = ref = ref_out = None  # No output outlives its run.
                if i >= warmup:
                    stopped = stopper.done(watched)
                i += 1
        alone: dict[str, Any] = {}  # What timing the reference on its own says of it.
        if not interleave:
            _reference_series(ctx, timer, rng, fixed, samples, alone, gpu)
        timing: dict[str, Any] = {"warmup_runs": warmup, "timed_runs": len(samples["candidate_ms"]),
                                  "max_timed_runs": o.timed_runs, "stopped": stopped, **samples,
                                  **_clock(ctx), "fresh_inputs": fresh,
                                  "interleaved": interleave, "revalidated": checked,
                                  "revalidation_failures": failures,
                                  "inputs_mutated_runs": mutated,
                                  "revalidated_relative_error": worst_error}
        timing.update(alone)
        timing.update(timer.facts())
        if first_failure:
            timing["first_revalidation_failure"] = first_failure
        if o.compile_baseline:
            compiled = compile_reference(ctx, rng)
            if compiled is not None:
                timing["compiled_reference_ms"] = time_compiled(ctx, timer, rng, compiled, gpu)
        if expert is not None:
            gpu.trim("expert", warmup)
            timing["expert_ms"] = expert_ms[warmup:] if all(ms >= 0 for ms in expert_ms) else None
            timing["expert_interleaved"] = True
            if timing["expert_ms"] is None:
                del timing["expert_ms"], timing["expert_interleaved"]
                ctx.facts.pop("expert", None)
        else:
            separate = time_expert(ctx, timer, rng, gpu)
            if separate is not None:
                timing["expert_ms"], timing["expert_interleaved"] = separate, False
        figures = gpu.facts()
        if "expert_ms" not in timing:
            figures.pop("expert_gpu_ms", None)
        timing.update(figures)
        ctx.facts["timing"] = timing


def _timed_candidate(ctx: Context, timer: Timer, args: list[Any], i: int) -> Timed:
    try:
        before = set(enumerate_threads())
        os_before = thread_count()
        with ctx.calls(f"timed run {i}"):
            result = timer.time(ctx.model_new, args)
        os_after = thread_count()
        check_identities(ctx)
        note_threads(ctx, before)
        if os_after > os_before and i >= ctx.o.warmup_runs:
            # A thread no Python API shows (e.g. _thread.start_new_thread) still running once
            # the call and the device are done: work outside the window.
            ctx.facts["os_threads_left_running"] = max(
                ctx.facts.get("os_threads_left_running", 0), os_after - os_before)
        return result
    except BaseException as e:  # noqa: BLE001
        ctx.fail(Status.FORWARD_ERROR, e, timed_run=i)
        raise  # Unreachable: fail raises Abort.


def _timed_expert(ctx: Context, timer: Timer, kernel: Any, x: list[Any],
                  gpu: GpuSeries) -> float:
    """One interleaved run of the expert kernel on its own copy of the run's inputs (its
    window kept in `gpu`, warm-ups too); -1 (and a note, once) when it fails, which drops the
    expert baseline, not the candidate."""
    if "expert" not in ctx.facts:
        return -1.0
    try:
        timed = timer.time(kernel, inputs.clone_inputs(x))
        gpu.keep("expert", timed)
        ms = timed.ms
    except Exception as e:  # noqa: BLE001
        ctx.facts["notes"].append(f"expert baseline failed: {type(e).__name__}: {e}"[:500])
        ctx.facts.pop("expert", None)
        return -1.0
    ctx.gpu_busy_ms += ms
    return round(ms, 6)


def _revalidate(out: Any, ref_out: Any, criterion: str, atol: float,
                rtol: float) -> tuple[bool, dict[str, Any], float]:
    """Whether a timed output matches the reference's on the same inputs, what is wrong if not,
    and its relative error."""
    got, want = check.flatten_outputs(out), check.flatten_outputs(ref_out)
    if len(got) != len(want):
        return False, {"problem": "number of outputs changed"}, 0.0
    error = 0.0
    for g, w in zip(got, want):
        if not isinstance(g, torch.Tensor) or g.shape != w.shape:
            return False, {"problem": "output form changed"}, error
        error = max(error, check.relative_error(g, w))
        bad = check.count_mismatches(g, w, criterion, atol, rtol)
        if bad:
            return False, {"problem": "values", "violations": bad}, error
    return True, {}, error
