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
from dataclasses import dataclass
from typing import Any, Callable

from . import fallback

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


@dataclass
class Task:
    module: types.ModuleType
    model_class: type
    get_inputs: Callable[[], Any]
    get_init_inputs: Callable[[], Any]


def load_task(path: str) -> Task:
    import torch.nn as nn

    with open(path, encoding="utf-8") as f:
        source = f.read()
    module = types.ModuleType("adaexplore_task")
    module.__file__ = path
    exec(compile(source, path, "exec"), module.__dict__)
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


def load_candidate(path: str, module_name: str, recorder: Callable[[int], None]) -> type:
    """Imports the candidate, its except handlers reporting to `recorder` (fallback.py), and
    returns its ModelNew class."""
    import torch.nn as nn

    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise LoadError(f"cannot import {path}")
    with open(path, encoding="utf-8") as f:
        code = fallback.instrumented_code(f.read(), path)
    module = importlib.util.module_from_spec(spec)
    module.__dict__[fallback.RECORDER] = recorder
    sys.modules[module_name] = module
    exec(code, module.__dict__)
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
