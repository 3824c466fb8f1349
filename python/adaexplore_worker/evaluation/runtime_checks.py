"""What the candidate's code did, recorded after each time it ran: replaced harness functions (put
back), global module hooks (removed), audit and torch.compile findings, its ancestry, precision
flags it changed on import (restored) and threads it left running. Facts only; the C++ side's
checks (src/eval/checks.h) decide what rejects."""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

import torch

from ..integrity.audit import AuditWatch
from ..integrity.fallback import RECORDER, FallbackWatch
from ..integrity.guard import IdentityGuard, clear_global_hooks, reference_classes
from ..integrity.launches import LaunchCounter
from .context import CANDIDATE_MODULE, Context

enumerate_threads = threading.enumerate  # Bound before any candidate is imported.


def watch(ctx: Context, candidate_path: str) -> None:
    """Starts watching, just before the candidate is imported."""
    # Importing dynamo rebinds torch.manual_seed (torch/_dynamo/__init__.py): done before the
    # snapshot, whether or not the reference phase (which the cache may skip) imported it.
    import torch._dynamo  # noqa: F401
    ctx.audit = AuditWatch(candidate_path)  # Wraps thread starters: before the snapshot.
    ctx.launches = LaunchCounter(candidate_path, interpreting=not ctx.on_gpu)  # Hooks too.
    ctx.fallbacks = FallbackWatch()
    models = [m for m in (ctx.ref_model, ctx.ref_exact) if m is not None]
    ctx.identities = IdentityGuard(reference_classes(models),
                                   [sub for model in models for sub in model.modules()])
    ctx.dynamo_frames = dynamo_frames()


def check_identities(ctx: Context) -> None:
    """After any candidate code ran: puts back what it replaced in the harness's namespaces and
    removes global module hooks it registered (both recorded), and collects what the audit hook
    and torch.compile's counters saw."""
    assert ctx.identities is not None and ctx.audit is not None
    changed = ctx.identities.check_and_restore()
    changed += clear_global_hooks([ctx.ref_model] + ([ctx.ref_exact] if ctx.ref_exact
                                                     is not None else []))
    module = sys.modules.get(CANDIDATE_MODULE)
    if module is not None and vars(module).get(RECORDER) is not ctx.fallbacks:
        changed.append(f"{CANDIDATE_MODULE}.{RECORDER}")
        vars(module)[RECORDER] = ctx.fallbacks
    if changed:
        seen = ctx.facts.setdefault("patched", [])
        seen.extend(name for name in changed if name not in seen)
    runtime = ctx.facts.setdefault("runtime_findings", [])
    for finding in ctx.audit.findings:
        if finding not in runtime:
            runtime.append(finding)
    if dynamo_frames() > ctx.dynamo_frames:
        finding = {"rule": "torch_compile", "line": 0, "text": "torch.compile ran"}
        if finding not in runtime:
            runtime.append(finding)


def check_inheritance(ctx: Context, model_new_class: type) -> None:
    """ModelNew's ancestry at runtime (the static rule only sees class statements)."""
    assert ctx.task is not None
    for base in model_new_class.__mro__[1:]:
        if base.__name__ == "Model" or base is ctx.task.model_class:
            ctx.facts.setdefault("runtime_findings", []).append(
                {"rule": "model_inheritance", "line": 0,
                 "text": f"ModelNew derives from {base.__module__}.{base.__qualname__}"})
            break


def check_flags_after_import(ctx: Context) -> None:
    now = precision_flags()
    changed = sorted(k for k in now if now[k] != ctx.flags.get(k))
    ctx.facts["flags_changed_by_import"] = changed
    if changed:
        restore_precision_flags(ctx.flags)


def note_threads(ctx: Context, before: set[threading.Thread]) -> None:
    """Python threads the call started and left running: work that would finish outside any
    timing window."""
    left = [t.name for t in enumerate_threads() if t not in before and t.is_alive()]
    if left:
        seen = ctx.facts.setdefault("threads_left_running", [])
        seen.extend(name for name in left if name not in seen)


def dynamo_frames() -> int:
    """Frames torch.compile has compiled in this process so far."""
    try:
        from torch._dynamo.utils import counters
        return int(sum(counters["frames"].values()))
    except Exception:  # noqa: BLE001
        return 0


def precision_flags() -> dict[str, Any]:
    return {
        "cudnn.enabled": torch.backends.cudnn.enabled,
        "cudnn.benchmark": torch.backends.cudnn.benchmark,
        "cudnn.deterministic": torch.backends.cudnn.deterministic,
        "deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
        "default_dtype": str(torch.get_default_dtype()),
        "cuda.matmul.allow_tf32": torch.backends.cuda.matmul.allow_tf32,
        "cudnn.allow_tf32": torch.backends.cudnn.allow_tf32,
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "cuda.matmul.allow_fp16_reduced_precision_reduction":
            torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
        "cuda.matmul.allow_bf16_reduced_precision_reduction":
            torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
    }


def restore_precision_flags(flags: dict[str, Any]) -> None:
    torch.backends.cudnn.enabled = flags["cudnn.enabled"]
    torch.backends.cudnn.benchmark = flags["cudnn.benchmark"]
    torch.backends.cudnn.deterministic = flags["cudnn.deterministic"]
    torch.use_deterministic_algorithms(flags["deterministic_algorithms"])
    torch.set_default_dtype(getattr(torch, flags["default_dtype"].replace("torch.", "")))
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = flags[
        "cuda.matmul.allow_fp16_reduced_precision_reduction"]
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = flags[
        "cuda.matmul.allow_bf16_reduced_precision_reduction"]
    torch.backends.cuda.matmul.allow_tf32 = flags["cuda.matmul.allow_tf32"]
    torch.backends.cudnn.allow_tf32 = flags["cudnn.allow_tf32"]
    torch.set_float32_matmul_precision(flags["float32_matmul_precision"])


def thread_count() -> int:
    """Threads of this process, Python's and any other."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0
