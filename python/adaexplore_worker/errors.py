"""Describing what went wrong: an exception as the facts the C++ side classifies it by (its type,
message and traceback; a Triton compile error, a sticky CUDA error, out of memory).

A leaf: it imports nothing of the worker's.
"""

from __future__ import annotations

import traceback
from typing import Any

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


def unclassified(type_name: str, message: str, traceback_text: str) -> dict[str, Any]:
    """describe()'s facts for an error that is none of the classified ones and whose traceback
    says nothing to the user (a LoadError, a job the zygote cannot start): the text as given."""
    return {"type": type_name, "message": message, "traceback": traceback_text,
            "triton_compile": False, "cuda_error": None, "out_of_memory": False}
