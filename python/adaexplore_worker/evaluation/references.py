"""The reference phase: the task's model, every trial's inputs and reference outputs, made before
the candidate is imported; the null self-test (which trivial outputs would pass) and the roofline
figures. Reads and fills a context.Context."""

from __future__ import annotations

import copy
import time
from typing import Any, Callable

import torch

from ..correctness import check, inputs
from ..integrity import autotune_share
from ..protocol.channel import finite_or_none
from ..protocol.facts import Status
from ..task import LoadError
from . import errors, shrink
from .context import Abort, Context
from .runtime_checks import precision_flags


def set_up_torch(ctx: Context) -> None:
    allow_tf32 = ctx.o.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = allow_tf32
    torch.backends.cudnn.allow_tf32 = allow_tf32
    torch.set_float32_matmul_precision("high" if allow_tf32 else "highest")
    if ctx.on_gpu:
        torch.cuda.set_device(ctx.device)
        torch.cuda.init()
        ctx.facts["device_name"] = torch.cuda.get_device_name(ctx.device)
    else:
        ctx.facts["device_name"] = "cpu"
    ctx.flags = precision_flags()


def make_init_args(ctx: Context) -> list[Any]:
    assert ctx.task is not None
    torch.manual_seed(ctx.o.init_seed)
    raw = ctx.task.get_init_inputs()
    if not isinstance(raw, (list, tuple)):
        raise LoadError(f"get_init_inputs() returned {type(raw).__name__}, not a list")
    return [x.to(ctx.device, ctx.dtype if x.is_floating_point() else x.dtype)
            if isinstance(x, torch.Tensor) else x for x in raw]


def build_reference(ctx: Context) -> None:
    """The task's own Model, built as the candidate's will be."""
    assert ctx.task is not None
    task = ctx.task
    ctx.init_args = ctx.guard(Status.TASK_ERROR, lambda: make_init_args(ctx))
    ctx.ref_model = ctx.guard(Status.TASK_ERROR,
                              lambda: ctx.build(task.model_class, candidate=False))


def make_references(ctx: Context) -> None:
    """Builds the reference model and computes every trial's reference output."""
    build_reference(ctx)
    ctx.ref_exact = None
    if ctx.o.reference_precision == "fp64" and ctx.dtype != torch.float64:
        try:
            ctx.ref_exact = copy.deepcopy(ctx.ref_model).to(torch.float64)
        except Exception as e:  # noqa: BLE001
            ctx.facts["notes"].append(f"float64 reference unavailable ({e}); "
                                      "using the task precision")
    # The profile's trials, then one integrity trial per extra distribution; the seeds extend
    # the profile's own (a prefix of the same sequence), so its trials are unchanged.
    distributions = list(ctx.o.distributions) or ["task"]
    plan = [(distributions[i % len(distributions)], False) for i in range(ctx.o.trials)]
    plan += [(d, True) for d in ctx.o.integrity_distributions]
    ctx.seeds = inputs.trial_seeds(ctx.o.seed_mode, ctx.o.seed, len(plan))
    ctx.references = []
    place = _Placement(ctx)
    for seed, (wanted, integrity) in zip(ctx.seeds, plan):
        entry = _reference_for(ctx, seed, wanted)
        if integrity and entry["base"] != wanted:
            continue  # The task cannot take these inputs; its own are checked already.
        entry["integrity"] = integrity
        place(entry)
        ctx.references.append(entry)
    ctx.output_bytes = _output_bytes(ctx)
    make_size_set_references(ctx, place)
    ctx.facts["reference"] = {
        "fp64": ctx.ref_exact is not None,
        "outputs": [{"shape": list(r.shape), "dtype": str(r.dtype).replace("torch.", "")}
                    for r in ctx.references[0]["expected"]],
        "self_error": [e["self_error"] for e in ctx.references],
        "distributions": [e["distribution"] for e in ctx.references],
    }


def make_size_set_references(ctx: Context, place: Callable[[dict[str, Any]], None]) -> None:
    """The references of each of the size_sets option's sets, made as the task's own are (before
    the candidate is imported): the task resized to the set, its Model built there, the first
    `trials` of the task's own trials' seeds on the task's own inputs. A set whose reference
    cannot be made says why (the task's asserts tie its sizes together) and has no trials; the
    task's own references stand. The task's sizes, Model and init arguments are its own again
    after. ctx.size_sets: each set's facts and entries (their judge indices follow the task's)."""
    ctx.size_sets = []
    if not ctx.o.size_sets:
        return
    assert ctx.task is not None
    own = (ctx.init_args, ctx.ref_model, ctx.ref_exact, ctx.seeds)
    index = len(ctx.references)
    try:
        names = {n for s in ctx.o.size_sets for n in s.sizes}
        with shrink.restored_after(ctx.task, names) as own_sizes:
            _size_set_references(ctx, place, own, own_sizes, index)
    finally:
        ctx.init_args, ctx.ref_model, ctx.ref_exact, ctx.seeds = own
    ctx.facts["size_sets"] = [s["facts"] for s in ctx.size_sets]


def _size_set_references(ctx: Context, place: Callable[[dict[str, Any]], None],
                         own: tuple[Any, ...], own_sizes: dict[str, int], index: int) -> None:
    assert ctx.task is not None
    for size_set in ctx.o.size_sets:
        facts: dict[str, Any] = {"name": size_set.name, "reference_error": "", "ran": False,
                                 "trials": []}
        entries: list[dict[str, Any]] = []
        ctx.size_sets.append({"facts": facts, "entries": entries})
        facts["resize"] = shrink.resize_task(ctx.task, {**own_sizes, **size_set.sizes})
        try:
            ctx.init_args = make_init_args(ctx)
            ctx.ref_model = ctx.build(ctx.task.model_class, candidate=False)
            ctx.ref_exact = _exact_model(ctx) if own[2] is not None else None
            for seed in own[3][:size_set.trials]:
                entry = _reference_for(ctx, seed, "task")
                entry.update(integrity=False, set=size_set.name, index=index)
                place(entry)
                entries.append(entry)
                index += 1
        except Abort:  # _reference_for's task error: the set's, not the task's.
            error = ctx.facts.pop("error", {})
            ctx.facts["status"] = Status.OK
            facts["reference_error"] = (f"{error.get('type', 'Error')}: "
                                        f"{error.get('message', '')}")[:300]
        except Exception as e:  # noqa: BLE001 - building the Model there failed.
            facts["reference_error"] = f"{type(e).__name__}: {e}"[:300]
        if facts["reference_error"]:
            index -= len(entries)
            entries.clear()


def _exact_model(ctx: Context) -> torch.nn.Module | None:
    assert ctx.ref_model is not None
    try:
        return copy.deepcopy(ctx.ref_model).to(torch.float64)
    except Exception:  # noqa: BLE001 - the set's references keep the task precision.
        return None


class _Placement:
    """Keeps the stored outputs on the device up to the memory budget, the rest on the host, each
    trial's as it is made: the reference phase never holds more on the device than the budget
    and one trial's working set (a heavy task's trials, all kept there, once filled the device
    beside another slot's)."""

    def __init__(self, ctx: Context) -> None:
        self.device, self.budget, self.stored = ctx.device, _budget_bytes(ctx), 0

    def __call__(self, entry: dict[str, Any]) -> None:
        self.stored += sum(r.numel() * r.element_size() for r in entry["outputs"])
        where = self.device if self.stored <= self.budget else torch.device("cpu")
        entry["outputs"] = [r.to(where) for r in entry["outputs"]]


def _output_bytes(ctx: Context) -> int:
    return sum(t.numel() * t.element_size() for t in ctx.references[0]["expected"])


def snapshot(ctx: Context, notes: list[str]) -> dict[str, Any]:
    """What the reference phase made, for refcache: everything restore() needs. The outputs stay
    where they are (refcache writes them to the host one at a time)."""
    return {"references": [
        {"seed": e["seed"], "distribution": e["distribution"], "base": e["base"],
         "spec": e["spec"].items, "outputs": list(e["outputs"]),
         "maxima": e["maxima"], "self_error": e["self_error"], "integrity": e["integrity"],
         "expected": [(list(t.shape), str(t.dtype).replace("torch.", ""))
                      for t in e["expected"]], "set": e.get("set", "")}
        for e in [*ctx.references, *(e for s in ctx.size_sets for e in s["entries"])]],
        "size_sets": [s["facts"] for s in ctx.size_sets],
        "seeds": list(ctx.seeds), "reference": ctx.facts["reference"],
        "autotune": autotune_share.choices(),
        "null_kernels": ctx.facts.get("null_kernels"), "roofline": ctx.facts.get("roofline"),
        "notes": notes}


def restore(ctx: Context, payload: dict[str, Any]) -> None:
    """The reference phase from a snapshot of an earlier job with the same reference key: the
    reference model is built again (timing and re-validation call it), its outputs are not."""
    build_reference(ctx)
    autotune_share.seed(payload.get("autotune") or {})  # The configurations they were made with.
    ctx.seeds = list(payload["seeds"])
    every = [
        {"seed": e["seed"], "distribution": e["distribution"], "base": e["base"],
         "spec": inputs.InputSpec(list(e["spec"])), "outputs": list(e["outputs"]),
         "maxima": list(e["maxima"]), "self_error": e["self_error"],
         "integrity": e["integrity"], "set": e.get("set", ""), "index": i,
         "expected": [torch.empty(shape, dtype=getattr(torch, dtype), device="meta")
                      for shape, dtype in e["expected"]]}
        for i, e in enumerate(payload["references"])]
    ctx.references = [e for e in every if not e["set"]]
    ctx.size_sets = [{"facts": dict(f, trials=[], ran=False),
                      "entries": [e for e in every if e["set"] == f["name"]]}
                     for f in payload.get("size_sets", [])]
    if ctx.size_sets:
        ctx.facts["size_sets"] = [s["facts"] for s in ctx.size_sets]
    place = _Placement(ctx)
    for entry in every:
        place(entry)
    ctx.output_bytes = _output_bytes(ctx)
    ctx.facts["reference"] = payload["reference"]
    for key in ("null_kernels", "roofline"):
        if payload.get(key) is not None:
            ctx.facts[key] = payload[key]
    ctx.facts["notes"].extend(payload["notes"])


def _reference_for(ctx: Context, seed: int, wanted: str) -> dict[str, Any]:
    """One trial's reference; falls back to the task's own inputs where another distribution
    makes the reference fail or produce non-finite values."""
    assert ctx.ref_model is not None
    for distribution in ([wanted, "task"] if wanted != "task" else ["task"]):
        try:
            x = ctx.make_inputs(seed, distribution)
        except Exception as e:  # noqa: BLE001
            if distribution == "task":
                _fail_task(ctx, e)
            continue
        try:
            with torch.no_grad():
                expected = check.flatten_outputs(ctx.ref_model(*x))
        except Exception as e:  # noqa: BLE001
            if distribution == "task":
                _fail_task(ctx, e)
            continue
        if ctx.on_gpu:
            # A fault of the reference's own kernels is the task's: made to surface here, not in
            # the candidate's phase (where it would be taken for the candidate's).
            try:
                torch.cuda.synchronize(ctx.device)
            except Exception as e:  # noqa: BLE001
                _fail_task(ctx, e)
        exact = _exact_reference(ctx, x, expected)
        if not all(isinstance(t, torch.Tensor) for t in expected):
            _fail_task(ctx, LoadError("the reference Model returned something other than "
                                      "tensors"))
        if not expected:
            _fail_task(ctx, LoadError("the reference returned no tensors: there is nothing "
                                      "to check a candidate against"))
        assert ctx.task is not None
        if ctx.task.may_leave_outputs_unwritten and ctx.on_gpu and ctx.o.poison_memory:
            _check_outputs_written(ctx, x, expected)
        finite = all(bool(torch.isfinite(t).all()) for t in exact if t.is_floating_point())
        if not finite and distribution != "task":
            continue
        outputs = [_stored(e, t) for e, t in zip(expected, exact)]
        maxima = [check.max_abs_finite(t) if t.is_floating_point() else None for t in outputs]
        self_error = _relative_error(expected, exact) if exact is not expected else 0.0
        label = distribution if distribution == wanted else f"task (fallback from {wanted})"
        spec = inputs.InputSpec.of(x)
        del x
        return {"seed": seed, "distribution": label, "base": distribution, "spec": spec,
                "outputs": outputs, "maxima": maxima,
                # Shape and dtype the candidate must produce, without the storage.
                "expected": [torch.empty(t.shape, dtype=t.dtype, device="meta")
                             for t in expected],
                "self_error": self_error}
    raise AssertionError("unreachable: the task distribution either returns or fails")


def _check_outputs_written(ctx: Context, x: list[Any], expected: list[Any]) -> None:
    """Runs the reference again with freed device memory poisoned, as the candidate's calls are
    (trials.poison): an element that is finite the first time and NaN now was never written by
    the reference; its value is whatever the memory held. No candidate can be judged on such a
    task (its own code would fail), so that is a task error, not a verdict on the candidate."""
    from .trials import poison

    poison(ctx)
    with torch.no_grad():
        again = check.flatten_outputs(ctx.ref_model(*x))
    torch.cuda.synchronize(ctx.device)
    unwritten, total = 0, 0
    for first, second in zip(expected, again):
        if (isinstance(first, torch.Tensor) and isinstance(second, torch.Tensor)
                and first.is_floating_point() and first.shape == second.shape):
            unwritten += int((torch.isfinite(first) & torch.isnan(second)).sum())
            total += first.numel()
    if unwritten:
        _fail_task(ctx, LoadError(
            f"the reference's outputs depend on memory it never writes: {unwritten} of {total} "
            f"elements became NaN when freed device memory was filled with NaN before a second "
            f"call (its test returns elements its kernels leave unwritten); no candidate can be "
            f"judged on them"))


def _exact_reference(ctx: Context, x: list[Any], expected: list[Any]) -> list[Any]:
    """The float64 reference's outputs on x, or `expected` when there is none. A task that cannot
    run in float64 (tensors it makes in float32 inside forward, an op without a float64 kernel)
    keeps the task precision for the whole evaluation, with a note."""
    if ctx.ref_exact is None:
        return expected
    try:
        x64 = [t.to(torch.float64) if isinstance(t, torch.Tensor) and t.is_floating_point()
               else t for t in x]
        started = time.perf_counter()
        with torch.no_grad():
            exact = check.flatten_outputs(ctx.ref_exact(*x64))
        if ctx.on_gpu:
            torch.cuda.synchronize(ctx.device)
        spent = time.perf_counter() - started
    except Exception as e:  # noqa: BLE001
        if errors.is_out_of_memory(e) and not ctx.o.exclusive:
            # Beside other jobs the device may just have been full: a task error the C++ side
            # retries with the device to itself, where falling back is the task's own doing (a
            # precision chosen by the neighbours would make verdicts depend on the slots).
            _fail_task(ctx, e)
        message = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
        ctx.facts["notes"].append(f"float64 reference failed ({type(e).__name__}: "
                                  f"{message}); using the task precision")
        ctx.ref_exact = None
        return expected
    calls = ctx.o.trials + len(ctx.o.integrity_distributions)
    if not ctx.references and ctx.o.fp64_budget_s > 0 and spent * calls > ctx.o.fp64_budget_s:
        # Judged on the first trial, so every trial keeps one precision.
        ctx.facts["notes"].append(
            f"float64 reference took {spent:.1f} s for one trial, {spent * calls:.0f} s for "
            f"{calls}: over its budget of {ctx.o.fp64_budget_s:g} s (--fp64-budget); using the "
            f"task precision")
        ctx.ref_exact = None
        return expected
    return exact


def _stored(expected: torch.Tensor, exact: torch.Tensor) -> torch.Tensor:
    """The reference kept for comparison: the exact output rounded to float32 (float64 for
    float64 tasks), which costs nothing at any tolerance we use."""
    if not exact.is_floating_point():
        return exact.detach()
    keep = torch.float64 if expected.dtype == torch.float64 else torch.float32
    return exact.detach().to(keep)


def _fail_task(ctx: Context, e: BaseException) -> None:
    ctx.facts["status"] = Status.TASK_ERROR
    ctx.facts["error"] = errors.describe(e)
    raise Abort()


def _budget_bytes(ctx: Context) -> int:
    """Device memory the stored references may take; the rest live on the host."""
    if not ctx.on_gpu:
        return 1 << 62
    free, _total = torch.cuda.mem_get_info(ctx.device)
    return int(free * ctx.o.reference_gpu_fraction)


def warm_up() -> None:
    """Runs the flop counter once on the CPU (never CUDA: the zygote must not initialise it). Its
    first use loads torch's dispatch-mode machinery, a second or more that every forked child
    would otherwise pay again in its reference phase."""
    try:
        from torch.utils.flop_counter import FlopCounterMode
        with torch.no_grad(), FlopCounterMode(display=False):
            torch.nn.functional.relu(torch.ones(2, 2) @ torch.ones(2, 2)).sum()
    except Exception:  # noqa: BLE001 - roofline() notes the problem where it matters.
        pass


def roofline(ctx: Context) -> dict[str, Any] | None:
    """What the reference does: matrix-unit flops (torch's flop counter over one reference call)
    and bytes (every input and parameter read once, every output written once); and what any
    correct kernel must do: `io_bytes`, the forward inputs read once and the outputs written
    once. Only `io_bytes` sets the speed-of-light bound (C++ side): a kernel may legitimately
    skip flops by algebra (a GEMM followed by a sum needs only a GEMV) and read parameters
    reduced once at construction."""
    assert ctx.ref_model is not None
    try:
        from torch.utils.flop_counter import FlopCounterMode

        ref = ctx.references[0]
        x = ctx.make_inputs(ref["seed"], ref["base"])
        with torch.no_grad(), FlopCounterMode(display=False) as counter:
            out = check.flatten_outputs(ctx.ref_model(*x))
        io = [t for t in x if isinstance(t, torch.Tensor)]
        io += [t for t in out if isinstance(t, torch.Tensor)]
        params = list(ctx.ref_model.parameters()) + list(ctx.ref_model.buffers())

        def size(tensors: list[torch.Tensor]) -> int:
            return int(sum(t.numel() * t.element_size() for t in tensors))

        return {"flops": int(counter.get_total_flops()), "bytes": size(io + params),
                "io_bytes": size(io)}
    except Exception as e:  # noqa: BLE001 - a missing bound is a note, not a failure.
        ctx.facts["notes"].append(f"no roofline figures: {type(e).__name__}: {e}")
        return None


def null_selftest(ctx: Context) -> dict[str, bool]:
    """Which trivial outputs would pass this task's checks: zeros, one constant (the mean of the
    first reference), the first input itself, and that input's mean. Any that passes makes the
    task degenerate: a 'correct' verdict on it proves little."""
    criterion = ctx.o.criterion
    atol, rtol = ctx.o.atol, ctx.o.rtol
    first = ctx.references[0]["outputs"]
    means = [float(t.double().mean()) if t.is_floating_point() and t.numel() else 0.0
             for t in first]

    def constant(value_of: Callable[[dict[str, Any], int], float | None]) -> bool:
        for ref in ctx.references:
            for k, (stored, ref_max) in enumerate(zip(ref["outputs"], ref["maxima"])):
                value = value_of(ref, k)
                if value is None or check.constant_mismatches(
                        value, stored, criterion, atol, rtol, ref_max or 0.0):
                    return False
        return True

    def first_input(ref: dict[str, Any]) -> torch.Tensor | None:
        x = ctx.make_inputs(ref["seed"], ref["base"])
        return next((t for t in x if isinstance(t, torch.Tensor)), None)

    def input_mean(ref: dict[str, Any], k: int) -> float | None:
        x = first_input(ref)
        return float(x.double().mean()) if x is not None and x.is_floating_point() else None

    def identity() -> bool:
        for ref in ctx.references:
            x = first_input(ref)
            for stored in ref["outputs"]:
                if (x is None or x.numel() != stored.numel()
                        or check.count_mismatches(x.reshape(stored.shape), stored, criterion,
                                                  atol, rtol)):
                    return False
        return True

    return {"zeros": constant(lambda ref, k: 0.0),
            "constant": constant(lambda ref, k: means[k]),
            "input_mean": constant(input_mean),
            "identity": identity()}


def _relative_error(expected: list[torch.Tensor], exact: list[torch.Tensor]) -> float | None:
    """max |task-precision reference - float64 reference| / max |float64 reference|: how far
    PyTorch itself is from exact at the task's precision."""
    worst = 0.0
    for e, x in zip(expected, exact):
        if not x.is_floating_point() or e.shape != x.shape:
            continue
        d = check.max_difference(e, x)
        scale = check.max_abs_finite(x)
        if d is None or scale == 0.0:
            continue
        worst = max(worst, d / scale)
    return finite_or_none(worst)
