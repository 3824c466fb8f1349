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
from .context import Context
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


def run_candidate(ctx: Context, args: list[Any], trial: int, during: str) -> Any:
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
        ctx.fail(Status.FORWARD_ERROR, e, trial=trial)


def check_trials(ctx: Context) -> None:
    criterion = ctx.o.criterion
    atol, rtol = ctx.o.atol, ctx.o.rtol
    for i, ref in enumerate(ctx.references):
        x = ctx.make_inputs(ref["seed"], ref["base"])
        if inputs.InputSpec.of(x) != ref["spec"]:
            ctx.inputs_changed(i)
        candidate_inputs = inputs.clone_inputs(x)
        poison(ctx)
        out = run_candidate(ctx, candidate_inputs, i, f"trial {i}")
        trial: dict[str, Any] = {"index": i, "seed": ref["seed"],
                                 "distribution": ref["distribution"],
                                 "integrity": ref["integrity"]}
        outputs = check.flatten_outputs(out)
        if ctx.recorder is not None:  # What the judge compares, out of the candidate's reach.
            with ctx.session.part("check.record"):
                ctx.recorder.record(i, outputs)
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
        ctx.facts["trials"].append(trial)
        if i == 0:
            ctx.first_output = [o.detach().clone() if isinstance(o, torch.Tensor) else o
                                for o in outputs]
        del out, outputs, candidate_inputs, x
        if not passed and ctx.o.stop_at_first_failure:
            break


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
