"""Loading the task and the candidate, and describing what went wrong when loading fails.

The task is executed into a fresh module object that is never registered in sys.modules, so the
candidate cannot reach it by name (KernelBench's shared-globals hole). The candidate is imported
from its own file as its own module: Triton's @jit needs real source it can read back.
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
import types
from dataclasses import dataclass, field
from typing import Any, Callable

from . import fallback
from .protocol import TaskFile

MAX_TRACEBACK_CHARS = 32_000
_STICKY_CUDA_ERRORS = (
    "illegal memory access",
    "misaligned address",
    "unspecified launch failure",
    "illegal instruction",
    "hardware stack error",
    "an illegal address",
    "device-side assert",
)


class LoadError(Exception):
    """A task or candidate that cannot be used, with the reason in words."""


@dataclass(frozen=True)
class Expert:
    """A task's expert kernel: the hand-written library kernel a candidate is also timed against
    (FlashInfer's own for a FlashInfer-Trace definition). `build` imports it and returns a
    callable that takes the task's inputs and returns its outputs; it raises where the kernel is
    not available (its package does not import, no GPU)."""
    name: str  # What is timed, as a user would call it: "flashinfer.norm.rmsnorm".
    build: Callable[[], Callable[..., Any]]


@dataclass
class Task:
    """A task of any kind, in the one shape the harness's phases use: a model class built with
    get_init_inputs() and called on get_inputs(). The kinds other than KernelBench's adapt
    themselves to it (flashinfer.py, tritonbench.py): they say how a candidate file becomes the
    module to import (`prepare_candidate`) and that module a model class (`adapt_candidate`)."""
    module: types.ModuleType
    model_class: type
    get_inputs: Callable[[], Any]
    get_init_inputs: Callable[[], Any]
    kind: str = "kernelbench"
    # Inputs keep the dtypes the task makes them in: the run's precision does not recast them.
    keeps_dtypes: bool = False
    prepare_candidate: Callable[[str], str] | None = None
    adapt_candidate: Callable[[types.ModuleType, str], type] | None = None
    description: dict[str, Any] = field(default_factory=dict)
    # Its reference may return elements it never writes (a TritonBench-G test returning a
    # torch.empty its kernel fills in part): checked under poisoned memory (references.py).
    may_leave_outputs_unwritten: bool = False
    # Folders the candidate's import may import from (a Solution's own sources): set by
    # prepare_candidate, on sys.path during the import only.
    import_dirs: list[str] = field(default_factory=list)
    # The expert kernel the candidate is also timed against (with expert_baseline), if any.
    expert: Expert | None = None


def exec_module(module: types.ModuleType, source: str, filename: str) -> None:
    module.__file__ = filename
    exec(compile(source, filename, "exec"), module.__dict__)


def load_task(path: str, spec: TaskFile | None = None, device: str = "cpu") -> Task:
    """The task at `path`, of the kind `spec` names (KernelBench without one)."""
    kind = spec.kind if spec is not None else "kernelbench"
    if kind == "flashinfer":
        from . import flashinfer
        assert spec is not None
        return flashinfer.load_task(path, spec.workload, spec.data_root)
    if kind == "tritonbench":
        from . import tritonbench
        return tritonbench.load_task(path, device)
    return load_kernelbench(path)


def load_kernelbench(path: str) -> Task:
    import torch.nn as nn

    with open(path, encoding="utf-8") as f:
        source = f.read()
    module = types.ModuleType("adaexplore_task")
    exec_module(module, source, path)
    model = getattr(module, "Model", None)
    if not isinstance(model, type) or not issubclass(model, nn.Module):
        raise LoadError("the task defines no class Model(nn.Module)")
    get_inputs = getattr(module, "get_inputs", None)
    get_init_inputs = getattr(module, "get_init_inputs", None)
    if not callable(get_inputs):
        raise LoadError("the task defines no function get_inputs()")
    if not callable(get_init_inputs):
        raise LoadError("the task defines no function get_init_inputs()")
    return Task(module, model, get_inputs, get_init_inputs)


def candidate_python(kind: str, text: str) -> str:
    """The Python a candidate of a task of `kind` holds, for the static checks: a FlashInfer
    Solution's Python sources, else the text itself."""
    if kind == "flashinfer":
        from . import flashinfer
        return flashinfer.candidate_python(text)
    return text


def candidate_file(path: str, task: Task) -> str:
    """The Python file the candidate at `path` is imported from (a Solution's entry file, a
    TritonBench operator joined with the task's test)."""
    return task.prepare_candidate(path) if task.prepare_candidate is not None else path


def load_candidate(path: str, module_name: str, recorder: Callable[[int], None],
                   task: Task | None = None) -> type:
    """Imports the candidate (`path`, from candidate_file()), its except handlers reporting to
    `recorder` (fallback.py), and returns its model class: ModelNew, or what the task kind makes
    of the module."""
    import torch.nn as nn

    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise LoadError(f"cannot import {path}")
    with open(path, encoding="utf-8") as f:
        code = fallback.instrumented_code(f.read(), path)
    module = importlib.util.module_from_spec(spec)
    module.__dict__[fallback.RECORDER] = recorder
    sys.modules[module_name] = module
    dirs = list(task.import_dirs) if task is not None else []
    sys.path[:0] = dirs
    try:
        exec(code, module.__dict__)
    finally:
        for d in dirs:
            if d in sys.path:
                sys.path.remove(d)
    if task is not None and task.adapt_candidate is not None:
        return task.adapt_candidate(module, path)
    model_new = getattr(module, "ModelNew", None)
    if model_new is None:
        raise LoadError("the candidate defines no class ModelNew")
    if not isinstance(model_new, type) or not issubclass(model_new, nn.Module):
        raise LoadError("ModelNew is not a subclass of torch.nn.Module")
    return model_new


def _chain(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in seen and len(seen) < 16:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def is_triton_compile_error(error: BaseException) -> bool:
    for e in _chain(error):
        cls = type(e)
        if cls.__module__.startswith("triton.compiler") or cls.__name__ in (
                "CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct"):
            return True
    return False


def cuda_error_kind(error: BaseException) -> str | None:
    """The sticky CUDA error named in the exception chain (one that poisons the context)."""
    for e in _chain(error):
        text = str(e).lower()
        for kind in _STICKY_CUDA_ERRORS:
            if kind in text:
                return kind
    return None


def is_out_of_memory(error: BaseException) -> bool:
    for e in _chain(error):
        if type(e).__name__ in ("OutOfMemoryError", "MemoryError"):
            return True
        if "out of memory" in str(e).lower():
            return True
    return False


def describe(error: BaseException) -> dict[str, Any]:
    """Facts about an exception: its type, message, full traceback and the classifications the C++
    side uses (compile error, sticky CUDA error, out of memory)."""
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    if len(text) > MAX_TRACEBACK_CHARS:
        half = MAX_TRACEBACK_CHARS // 2
        text = text[:half] + "\n[... traceback truncated ...]\n" + text[-half:]
    return {
        "type": type(error).__qualname__,
        "message": str(error)[:4000],
        "traceback": text,
        "triton_compile": is_triton_compile_error(error),
        "cuda_error": cuda_error_kind(error),
        "out_of_memory": is_out_of_memory(error),
    }
