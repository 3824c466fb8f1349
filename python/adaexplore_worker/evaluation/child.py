"""One evaluation, in a freshly forked child: the only process that initialises CUDA.

Order matters for trust: the task is loaded, and every trial's inputs and reference outputs are
made, before the candidate is imported (references.py). All of that may run ahead of a worker
slot while other candidates hold them; the candidate's phases wait for one. The candidate then
runs on fresh copies of the same inputs; its outputs are checked for form and value, the inputs
for mutation, and the first trial is run twice for determinism (trials.py). Timing takes the
device exclusively (the zygote arbitrates) and interleaves the reference with the candidate on
fresh inputs every run, re-checking every timed output (measure.py); one more call runs under
the profiler (trace.py). Last, the size_sets option's other sizes: their references made with the
task's own, the candidate's trials there once its own passed (trials.check_size_sets). After any candidate code ran, runtime_checks.py records what it did.

This file only orders the phases over one context.Context. The result is a dict of facts.
Verdicts are decided by the C++ side.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ..correctness import judge, refcache
from ..integrity import autotune_share, dispatch_watch, integrity
from ..protocol.channel import Channel, sanitize
from ..protocol.facts import TASK_PHASES, Status
from ..protocol.job import Job
from . import errors, load, measure, references, runtime_checks, sanitizer, shrink, trace, trials
from .context import CANDIDATE_MODULE, Abort, Context, Session


class SandboxIncomplete(Exception):
    """The sandbox lacks protections the user required (--require-sandbox): the candidate is
    not imported."""

    def __init__(self, missing: list[str], reasons: dict[str, str]) -> None:
        why = "; ".join(f"{name}: {reasons.get(name, 'not in force')}" for name in missing)
        super().__init__(f"the sandbox lacks {', '.join(missing)} ({why}); --require-sandbox "
                         f"refuses to run the candidate without them")


def evaluate(job: Job, channel: Channel, task_path: str, candidate_path: str,
             plan: refcache.Plan | None = None,
             static: dict[str, Any] | None = None,
             confine: Callable[[], None] = lambda: None,
             outputs_fd: int | None = None) -> dict[str, Any]:
    """`static`: the source's findings (integrity.static_facts), when the caller has them.
    `confine`: called after the task's phases, before any candidate code (the sandbox's last
    restrictions). `outputs_fd`: where each trial's outputs are recorded for the judge."""
    if static is None:
        static = integrity.static_facts(
            load.candidate_python(job.task.kind, job.candidate.source))
    facts: dict[str, Any] = {"status": Status.OK, "phases": {}, "notes": [], "trials": [],
                             "static": static}
    session = Session(channel, facts, job.nonce)
    session.exclusive_only = job.options.exclusive
    ctx: Context | None = None
    try:
        ctx = Context(job.options, session, facts)
        ctx.recorder = judge.Recorder(outputs_fd) if outputs_fd is not None else None
        if job.options.baseline:
            run_baseline(ctx, job, task_path)
        elif job.options.sanitize:
            run_sanitizer(ctx, job, task_path, candidate_path, confine)
        elif (rule := _rejected_rule(job, static)) is not None:
            facts["notes"].append(f"not imported: its source breaks the static rule '{rule}', "
                                  f"which this profile rejects")
        else:
            run(ctx, job, task_path, candidate_path, plan, confine)
    except Abort:
        pass
    except SandboxIncomplete as e:
        facts["status"] = Status.HARNESS_ERROR
        facts["error"] = errors.describe(e)
    except BaseException as e:  # noqa: BLE001 - everything becomes a fact, nothing escapes.
        described = errors.describe(e)
        if session.current_phase in TASK_PHASES:
            # No candidate code has run: whatever escaped (an asynchronous fault of the
            # reference's kernels surfacing at a synchronize, say) is the task's.
            facts["status"] = Status.TASK_ERROR
        elif described["cuda_error"] or described["out_of_memory"]:
            facts["status"] = Status.FORWARD_ERROR
        elif isinstance(e, (SystemExit, KeyboardInterrupt)):
            facts["status"] = Status.FORWARD_ERROR
        else:
            facts["status"] = Status.HARNESS_ERROR
        facts["error"] = described
    if ctx is not None and ctx.audit is not None:
        _last_sweep(ctx)
    return facts


def _rejected_rule(job: Job, static: dict[str, Any]) -> str | None:
    """The first rule the profile rejects that the candidate's source breaks: then none of its
    code runs (the facts carry the findings, and the C++ side rejects on them)."""
    for finding in static["findings"]:
        if finding["rule"] in job.options.reject_rules:
            return str(finding["rule"])
    return None


def _last_sweep(ctx: Context) -> None:
    """What the candidate did before it raised (or the evaluation ended otherwise) is recorded
    too: a candidate that reads the harness's frames and then fails is still found reading."""
    try:
        runtime_checks.check_identities(ctx)
    except BaseException as e:  # noqa: BLE001 - a note; the facts so far stand.
        ctx.facts["notes"].append(f"last runtime check failed: {type(e).__name__}: {e}")


def run(ctx: Context, job: Job, task_path: str, candidate_path: str,
        plan: refcache.Plan | None, confine: Callable[[], None] = lambda: None) -> None:
    session, facts = ctx.session, ctx.facts
    autotune_share.install()  # Before the task's operator tunes (references.py).
    errors.show_file_as(task_path, job.task.filename)
    with session.phase("load_task"):
        ctx.task = ctx.guard(Status.TASK_ERROR, lambda: load.load_task(
            task_path, job.task, ctx.device.type))
        if ctx.task.kind == "kernelbench":
            ctx.facts["task_sizes"] = shrink.task_sizes(ctx.task)
        if job.options.shrink > 1:
            ctx.facts["shrink"] = shrink.shrink_task(ctx.task, job.options.shrink)
        if job.options.sizes:
            ctx.facts["resize"] = shrink.resize_task(ctx.task, job.options.sizes)
    with session.phase("reference"):
        try:
            with session.gpu("shared"):
                with session.part("reference.cuda"):
                    references.set_up_torch(ctx)
                snapshot = _references(ctx, plan)
                with session.part("reference.expert"):
                    measure.prepare_expert(ctx)
            if (snapshot is not None and plan is not None
                    and measure.times_reference_in_task_phase(ctx, plan.cached)):
                # The first job of the task on this worker (or each job, where no cache keeps
                # it): the reference timed while no candidate code has run, sealed with its
                # outputs for the later jobs and for every job's judge.
                with session.gpu("exclusive"), session.part("reference.timing"):
                    ctx.reference_timing = snapshot["reference_timing"] = \
                        measure.time_reference_once(ctx)
            if snapshot is not None and plan is not None:
                with session.part("reference.cache" if plan.cached else "reference.seal"):
                    stored = refcache.store(plan, snapshot, session.channel.send)
                if plan.cached:
                    ctx.facts.setdefault("reference_cache", stored)
            snapshot = None  # Nothing of the store outlives the task's phases.
        finally:  # The candidate gets no descriptor of the cache.
            if not (plan is not None and any(refcache.is_sealed(fd) for fd in plan.fds)):
                ctx.recorder = None  # No sealed references: no judge reads the outputs.
            for fd in plan.fds if plan is not None else ():
                os.close(fd)
    with session.part("dispatch.snapshot"):  # What the reference's torch calls dispatch to.
        dispatch_before = dispatch_watch.snapshot()
    session.slot()  # Everything above ran ahead of a slot; the candidate's phases take one.
    confine()
    task = ctx.task
    with session.phase("import"):
        # A Solution's sources written out, an operator joined to its test: no candidate code.
        written = candidate_path
        candidate_path = ctx.guard(Status.IMPORT_ERROR,
                                   lambda: load.candidate_file(candidate_path, task))
        if candidate_path == written:  # The user's own lines: tracebacks name their file.
            errors.show_file_as(candidate_path, job.candidate.filename)
        threads_before = runtime_checks.thread_count()
        runtime_checks.watch(ctx, candidate_path)
        model_new_class = ctx.guard(Status.IMPORT_ERROR, lambda: load.load_candidate(
            candidate_path, CANDIDATE_MODULE, ctx.fallbacks, task))
    if task.interface:
        ctx.facts["interface"] = dict(task.interface)
    runtime_checks.check_identities(ctx)
    with session.part("dispatch.import"):
        dispatch_watch.record(dispatch_before, facts)
    runtime_checks.check_flags_after_import(ctx)
    runtime_checks.check_inheritance(ctx, model_new_class)
    with session.gpu("shared"), session.phase("check"):
        ctx.model_new = ctx.guard(Status.INIT_ERROR,
                                  lambda: ctx.build(model_new_class, candidate=True))
        runtime_checks.check_identities(ctx)
        trials.check_trials(ctx)
        trials.check_determinism(ctx)
    facts["threads_started"] = max(0, runtime_checks.thread_count() - threads_before)
    all_passed = all(t.get("passed") for t in facts["trials"])
    facts["determinism_passed"] = facts.get("determinism", {}).get("passed", True)
    session.checkpoint(sanitize(facts))
    timed = ctx.o.measure and (all_passed or not ctx.o.time_only_if_correct)
    if timed:
        with session.gpu("exclusive"), session.phase("timing"):
            measure.time_candidate(ctx)
    # A timed candidate's trace gives its kernel time (and the reference's): the GPU to itself, as
    # for the timed runs (under the shared lock beside another slot's check, an fp32 GEMM's
    # traced call took 6.2 ms on the H200 where its timed runs took 3.8).
    with session.gpu("exclusive" if timed else "shared"), session.phase("trace"):
        trace.trace_phase(ctx)
    # The reference ran beside the candidate while timed and traced; checked off the GPU's locks.
    with session.part("dispatch.end"):
        dispatch_watch.record(dispatch_before, facts)
    facts["gpu_busy_ms"] = round(ctx.gpu_busy_ms, 3)
    if ctx.size_sets:  # Last: nothing timed or traced follows a resized task.
        with session.gpu("shared"), session.phase("size_sets"):
            trials.check_size_sets(ctx, model_new_class)


def _references(ctx: Context, plan: refcache.Plan | None) -> dict[str, Any] | None:
    """The reference phase, from the worker's cache when an earlier job of the same reference
    key left its outputs there (before the candidate is imported, as always). Returns what to
    store there when this job made them for the cache; None otherwise."""
    with ctx.session.part("reference.cache"):
        payload, outcome = refcache.read(plan) if plan is not None else (None, "")
    if payload is not None:
        references.restore(ctx, payload)
        ctx.reference_timing = payload.get("reference_timing")
        ctx.facts["reference_cache"] = outcome
        return None
    if outcome:
        ctx.facts["reference_cache"] = outcome
    notes_before = len(ctx.facts["notes"])
    with ctx.session.part("reference.outputs"):
        references.make_references(ctx)
    if ctx.o.null_selftest:
        with ctx.session.part("reference.selftest"):
            ctx.facts["null_kernels"] = references.null_selftest(ctx)
    with ctx.session.part("reference.roofline"):
        ctx.facts["roofline"] = references.roofline(ctx)
    if plan is None or plan.store_fd is None:
        return None
    return references.snapshot(ctx, ctx.facts["notes"][notes_before:])


def run_sanitizer(ctx: Context, job: Job, task_path: str, candidate_path: str,
                  confine: Callable[[], None]) -> None:
    """compute-sanitizer's tools on the candidate (sanitizer.py): the task is loaded here first,
    so a task that cannot load is the task's error, then each tool's run takes the candidate's
    slot and the shared lock (nothing is timed beside it). This process never imports the
    candidate."""
    session = ctx.session
    with session.phase("load_task"):
        ctx.guard(Status.TASK_ERROR, lambda: load.load_task(task_path, job.task, "cpu"))
    with session.phase("reference"):
        pass  # No references here; the zygote grants a slot from the end of this phase only.
    session.slot()
    confine()
    ctx.facts["sanitizer"] = []
    job_dir = os.path.dirname(os.path.abspath(candidate_path))
    with session.gpu("shared"):
        # A phase of its own: a job that ends in it (a limit, the harness) ran no candidate code.
        with session.phase("sanitize_probe"):
            usable = sanitizer.probe(job, task_path, job_dir, ctx.facts["sanitizer"])
        if usable:
            with session.phase("sanitize"):
                sanitizer.run(job, task_path, candidate_path, job_dir, ctx.facts["sanitizer"])


def run_baseline(ctx: Context, job: Job, task_path: str) -> None:
    """Times the task's own Model, eager and (with compile_baseline) under torch.compile, with the
    profile's timing settings: the per-task baseline the C++ side caches per GPU model, software
    and profile. No candidate is involved. torch.compile's compilation runs under the shared
    lock, the timed runs under the exclusive one."""
    session, o = ctx.session, ctx.o
    with session.phase("load_task"):
        ctx.task = ctx.guard(Status.TASK_ERROR, lambda: load.load_task(
            task_path, job.task, ctx.device.type))
        if job.options.shrink > 1:
            ctx.facts["shrink"] = shrink.shrink_task(ctx.task, job.options.shrink)
    rng = measure.rng_for(ctx)
    compiled = None
    with session.gpu("shared"), session.phase("reference"):
        references.set_up_torch(ctx)
        references.build_reference(ctx)
        fixed = None if o.fresh_inputs_per_run else ctx.guard(
            Status.TASK_ERROR, lambda: ctx.make_inputs(o.seed, "task"))
        if o.compile_baseline:
            compiled = measure.compile_reference(ctx, rng)
        measure.prepare_expert(ctx)
    session.slot()
    with session.gpu("exclusive"), session.phase("timing"):
        ctx.facts["timing"] = measure.time_baseline(ctx, rng, fixed, compiled)
    ctx.facts["gpu_busy_ms"] = round(ctx.gpu_busy_ms, 3)
