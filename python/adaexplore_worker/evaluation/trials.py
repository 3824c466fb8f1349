"""The check phase: the candidate's model runs every trial on fresh copies of the inputs the
references were made from, in poisoned memory; its outputs are checked for form and value, the
inputs for mutation, and the first trial runs again for determinism. Reads and fills a
context.Context."""

from __future__ import annotations

import time
from typing import Any

import torch

from ..correctness import check, inputs
from ..correctness.judge import RERUN
from ..protocol.facts import Status
from . import errors, shrink
from .context import Abort, Context
from .references import make_init_args
from .runtime_checks import check_identities, enumerate_threads, note_threads

POISON_BYTE = 0xFF  # NaN in every float format, -1 in signed integers.
MAX_POISON_BLOCKS = 4096  # Free blocks poisoned one by one; more is an allocator in pieces.


def poison(ctx: Context) -> None:
    """Fills memory the candidate's allocations will come from with 0xFF bytes (NaN), so output
    elements it never writes cannot inherit earlier values (the reference's output, or the
    previous call's). Two parts: every block already free in the caching allocator, taken one by
    one from its snapshot (best fit hands out the exact block, smallest first), and fresh room
    for what the candidate allocates beyond them."""
    if not (ctx.on_gpu and ctx.o.poison_memory):
        return
    torch.cuda.synchronize(ctx.device)
    torch.cuda.empty_cache()
    blocks: list[torch.Tensor] = []
    free_sizes = sorted(
        b["size"] for seg in torch.cuda.memory_snapshot()
        if seg.get("device") == ctx.device.index
        for b in seg.get("blocks", []) if b.get("state") == "inactive")
    for size in free_sizes[:MAX_POISON_BLOCKS]:
        blocks.append(torch.empty(size, dtype=torch.uint8, device=ctx.device))
    free, _ = torch.cuda.mem_get_info(ctx.device)
    # Enough for the outputs twice over plus scratch: where new allocations land.
    size = min(2 * ctx.output_bytes + (256 << 20), int(free * 0.5))
    blocks.append(torch.empty(size, dtype=torch.uint8, device=ctx.device))
    blocks += [torch.empty(512 << 10, dtype=torch.uint8, device=ctx.device) for _ in range(32)]
    for b in blocks:
        b.fill_(POISON_BYTE)
    torch.cuda.synchronize(ctx.device)
    ctx.facts["poisoned_free_blocks"] = min(len(free_sizes), MAX_POISON_BLOCKS)
    del blocks  # Back to the caching allocator, still holding the poison.


def run_candidate(ctx: Context, args: list[Any], trial: int, during: str,
                  fail: bool = True) -> Any:
    """The candidate's call on `args`, its runtime checks after. `fail`: a raising call ends the
    evaluation (the task's own trials); else it is raised as _Raised (a size set's: that set's
    error), and only the harness's own Abort, or SystemExit and the like, end the job."""
    try:
        with torch.no_grad():
            start = time.perf_counter()
            before = set(enumerate_threads())
            with ctx.calls(during):
                out = ctx.model_new(*args)  # type: ignore[misc]
            check_identities(ctx)
            note_threads(ctx, before)
            if ctx.on_gpu:
                torch.cuda.synchronize(ctx.device)
            ctx.gpu_busy_ms += (time.perf_counter() - start) * 1e3
            return out
    except BaseException as e:  # noqa: BLE001
        if not fail:
            if isinstance(e, Abort) or not isinstance(e, Exception):
                raise
            raise _Raised(e) from e
        ctx.fail(Status.FORWARD_ERROR, e, trial=trial)


def check_trials(ctx: Context) -> None:
    for i, ref in enumerate(ctx.references):
        x = ctx.make_inputs(ref["seed"], ref["base"])
        if inputs.InputSpec.of(x) != ref["spec"]:
            ctx.inputs_changed(i)
        trial, passed = _trial(ctx, ref, i, x, f"trial {i}", "check.record")
        ctx.facts["trials"].append(trial)
        if not passed and ctx.o.stop_at_first_failure:
            break


def check_size_sets(ctx: Context, model_new_class: type) -> None:
    """The candidate at each of the size_sets option's sets whose references were made, once
    its own trials (and rerun) passed, last of all: the task resized to the set, the candidate's
    model built there, each of the set's trials as the task's own are checked, and recorded for
    the judge under the set's indices. A call that raises ends that set's trials (its `error`),
    not the evaluation; the task's sizes are its own again after."""
    if not ctx.size_sets or not all_passed(ctx) or not ctx.facts.get("determinism_passed", True):
        return
    assert ctx.task is not None
    own = (ctx.init_args, ctx.model_new)
    names = {n for s in ctx.o.size_sets for n in s.sizes}
    try:
        with shrink.restored_after(ctx.task, names) as own_sizes:
            for size_set, wanted in zip(ctx.size_sets, ctx.o.size_sets):
                facts, entries = size_set["facts"], size_set["entries"]
                if not entries:
                    continue
                facts["ran"] = True
                shrink.resize_task(ctx.task, {**own_sizes, **wanted.sizes})
                try:
                    ctx.init_args = make_init_args(ctx)
                    ctx.model_new = ctx.build(model_new_class, candidate=True)
                    for ref in entries:
                        during = f"size set {facts['name']} trial {ref['index']}"
                        x = ctx.make_inputs(ref["seed"], ref["base"])
                        trial, _ = _trial(ctx, ref, ref["index"], x, during, "size_sets.record",
                                          fail=False)
                        facts["trials"].append(trial)
                except _Raised as e:
                    facts["error"] = errors.describe(e.cause)
                except Abort:
                    raise  # The harness ended the evaluation (its facts say why): not the set's.
                except Exception as e:  # noqa: BLE001 - its construction at the set raised.
                    facts["error"] = errors.describe(e)
                ctx.model_new = None
    finally:
        ctx.init_args, ctx.model_new = own


class _Raised(Exception):
    """The candidate's call raised at a size set (run_candidate's failure, not the job's)."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _trial(ctx: Context, ref: dict[str, Any], index: int, x: list[Any], during: str,
           record_part: str, fail: bool = True) -> tuple[dict[str, Any], bool]:
    """One trial: the candidate on fresh copies of `x` in poisoned memory, its outputs
    recorded for the judge under `index` and checked for form and value, the inputs for
    mutation. `fail`: a raising call ends the evaluation (the task's own trials), else it is
    raised as _Raised (a size set's)."""
    criterion = ctx.o.criterion
    atol, rtol = ctx.o.atol, ctx.o.rtol
    candidate_inputs = inputs.clone_inputs(x)
    poison(ctx)
    out = run_candidate(ctx, candidate_inputs, index, during, fail=fail)
    trial: dict[str, Any] = {"index": index, "seed": ref["seed"],
                             "distribution": ref["distribution"],
                             "integrity": ref["integrity"]}
    outputs = check.flatten_outputs(out)
    if ctx.recorder is not None:  # What the judge compares, out of the candidate's reach.
        with ctx.session.part(record_part):
            ctx.recorder.record(index, outputs)
    trial["outputs"] = []
    passed = len(outputs) == len(ref["outputs"])
    if not passed:
        trial["problems"] = [f"the candidate returned {len(outputs)} outputs, the "
                             f"reference {len(ref['outputs'])}"]
    for got, expected, stored, ref_max in zip(outputs, ref["expected"], ref["outputs"],
                                              ref["maxima"]):
        form = check.structure_facts(got, expected, candidate_inputs)
        entry: dict[str, Any] = {"form": form}
        if not form["problems"] or (form.get("shape_ok") and isinstance(got, torch.Tensor)):
            entry["values"] = check.compare(got, stored, criterion, atol, rtol, ref_max)
        passed = passed and not form["problems"] and entry.get("values", {}).get("passed",
                                                                                False)
        trial["outputs"].append(entry)
    trial["inputs_mutated"] = [j for j, (a, b) in enumerate(zip(candidate_inputs, x))
                               if not check.bitwise_equal(a, b)]
    passed = passed and not trial["inputs_mutated"]
    trial["passed"] = passed
    if index == 0 and fail:
        ctx.first_output = [o.detach().clone() if isinstance(o, torch.Tensor) else o
                            for o in outputs]
    del out, outputs, candidate_inputs, x
    return trial, passed


def all_passed(ctx: Context) -> bool:
    return bool(ctx.facts["trials"]) and all(t.get("passed") for t in ctx.facts["trials"])


def check_determinism(ctx: Context) -> None:
    if not ctx.o.determinism_check or not ctx.facts["trials"]:
        return
    if not ctx.facts["trials"][0].get("passed"):
        return
    ref = ctx.references[0]
    x = ctx.make_inputs(ref["seed"], ref["base"])
    poison(ctx)
    again = check.flatten_outputs(run_candidate(ctx, inputs.clone_inputs(x), 0, "the determinism rerun"))
    if ctx.recorder is not None:  # The judge compares the two runs too (judge.RERUN).
        with ctx.session.part("check.record"):
            ctx.recorder.record(RERUN, again)
    scale = max(((t.get("values") or {}).get("ref_max_abs") or 0.0
                 for t in ctx.facts["trials"][0]["outputs"]), default=0.0)
    ctx.facts["determinism"] = check.rerun_agreement(ctx.first_output, again, scale, ctx.o.atol,
                                                     ctx.o.rtol)
