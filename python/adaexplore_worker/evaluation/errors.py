"""Describing what went wrong: an exception as the facts the C++ side classifies it by (its type,
message and traceback; a Triton compile error, a sticky CUDA error, out of memory).

A leaf: it imports nothing of the worker's.
"""

from __future__ import annotations

import os
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


# The worker's own files (its package's, every subpackage's): their frames are the harness's, not
# the candidate's.
_HARNESS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_HEADER = "Traceback (most recent call last):"
_SHOWN_AS: dict[str, str] = {}  # A job's copy of a file -> the name the user knows it by.


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


# PyTorch's caching allocator asks NVML for the device's memory while wording its out-of-memory
# error; where NVML is out of reach (the sandbox) it asserts instead (pytorch/pytorch#112377).
_NVML_ASSERT = ("NVML_SUCCESS", "CUDACachingAllocator")


def is_out_of_memory(error: BaseException) -> bool:
    for e in _chain(error):
        if type(e).__name__ in ("OutOfMemoryError", "MemoryError"):
            return True
        text = str(e)
        if "out of memory" in text.lower() or all(s in text for s in _NVML_ASSERT):
            return True
    return False


def show_file_as(path: str, name: str) -> None:
    """From now on, describe() writes `path` (a job's copy of a file) as `name` (what the user
    called it): a traceback then points at `kernel.py`, line 3."""
    if path and name:
        _SHOWN_AS[path] = name


def _shown(text: str) -> str:
    for path, name in _SHOWN_AS.items():
        text = text.replace(path, name)
    return text


def _without_harness_frames(error: BaseException) -> tuple[traceback.TracebackException, int]:
    """The exception's traceback with the worker's own frames, and those before the first frame of
    a file show_file_as() names, left out, where some frame is not the worker's (an error of the
    harness itself keeps them all); and how many were left out."""
    te = traceback.TracebackException(type(error), error, error.__traceback__, compact=True)
    hidden = 0
    seen: set[int] = set()
    pending = [te]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        theirs = [f for f in current.stack if not f.filename.startswith(_HARNESS_DIR)]
        # What the harness called on the way to the user's file (torch's Module.__call__, say)
        # goes too: the traceback starts where their code does.
        first = next((i for i, f in enumerate(theirs) if f.filename in _SHOWN_AS), 0)
        theirs = theirs[first:]
        if theirs and len(theirs) < len(current.stack):
            hidden += len(current.stack) - len(theirs)
            current.stack = traceback.StackSummary.from_list(theirs)
        pending += [e for e in (current.__cause__, current.__context__) if e is not None]
    return te, hidden


def describe(error: BaseException) -> dict[str, Any]:
    """Facts about an exception: its type, message, traceback (the harness's frames left out, the
    job's copies of files named as the user named them) and the classifications the C++ side
    uses (compile error, sticky CUDA error, out of memory)."""
    te, hidden = _without_harness_frames(error)
    text = _shown("".join(te.format()))
    if hidden:
        text = text.replace(_HEADER, _HEADER[:-2] + f"; {hidden} frame(s) of the harness left "
                            f"out):", 1)
    if len(text) > MAX_TRACEBACK_CHARS:
        half = MAX_TRACEBACK_CHARS // 2
        text = text[:half] + "\n[... traceback truncated ...]\n" + text[-half:]
    return {
        "type": type(error).__qualname__,
        "message": _shown(str(error)[:4000]),
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
