"""One autotuning choice per kernel in a job: an autotuned Triton kernel whose name, source and
configs are those of a kernel already tuned in the job (a TritonBench operator's, tuned when the
reference ran) takes that kernel's choice for the same tuning key instead of benchmarking again.

A TritonBench operator's output can depend on its configuration (a split-K or a block size
changes the rounding): without this the operator's own code, evaluated as a candidate, may tune to
another configuration than the reference did and be judged incorrect against itself
(`matmul_dequant_int4` was, on the H200). A kernel the candidate changed tunes itself. The choices
travel with the reference cache (references.snapshot), so a job that reads its references from it
pins what the job that made them chose.

A leaf: it imports nothing of the worker's.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from typing import Any

# Kernel digest -> tuning key -> index of the chosen config in its list.
_CHOICES: dict[str, dict[tuple[Any, ...], int]] = {}
# Kernels that took a choice made before them: (file of their function, facts of the choice).
_TAKEN: list[tuple[str, dict[str, Any]]] = []
_PLAIN = (int, float, str, bool, type(None))


def _digest(tuner: Any) -> str | None:
    """The kernel's name, source (its decorators included) and configs, once per tuner: run is on
    the timed path."""
    cached = getattr(tuner, "_adaexplore_digest", False)
    if cached is not False:
        return cached
    base = getattr(tuner, "base_fn", None)
    try:
        source = inspect.getsource(base)
    except (OSError, TypeError):
        digest = None
    else:
        configs = [str(c) for c in getattr(tuner, "configs", [])]
        text = json.dumps([getattr(base, "__name__", ""), source, configs])
        digest = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
    try:
        tuner._adaexplore_digest = digest
    except AttributeError:
        pass
    return digest


def _file_of(tuner: Any) -> str:
    code = getattr(getattr(tuner, "base_fn", None), "__code__", None)
    return getattr(code, "co_filename", "")


def install(autotuner_class: Any = None) -> None:
    """Wraps the autotuner's run (Triton's, or the class given) once per process."""
    if autotuner_class is None:
        try:
            from triton.runtime.autotuner import Autotuner as autotuner_class
        except ImportError:
            return
    if getattr(autotuner_class.run, "shares_choices", False):
        return
    original = autotuner_class.run

    def run(tuner: Any, *args: Any, **kwargs: Any) -> Any:
        digest = _digest(tuner)
        cache = getattr(tuner, "cache", None)
        configs = list(getattr(tuner, "configs", []))
        if digest is None or not isinstance(cache, dict) or len(configs) < 2:
            return original(tuner, *args, **kwargs)
        known = _CHOICES.setdefault(digest, {})
        for key, index in known.items():
            if key not in cache and 0 <= index < len(configs):
                cache[key] = configs[index]
                name = getattr(getattr(tuner, "base_fn", None), "__name__", "?")
                _TAKEN.append((_file_of(tuner), {
                    "kernel": name, "configs": len(configs), "chosen": str(configs[index]),
                    "how": "the choice made for the same kernel and configs before it "
                           "(the task's own operator), shared"}))
        before = len(cache)
        try:
            return original(tuner, *args, **kwargs)
        finally:
            for key, config in list(cache.items()) if len(cache) != before else ():
                if key in known or not all(isinstance(k, _PLAIN) for k in key):
                    continue
                for index, candidate in enumerate(configs):
                    if candidate is config:
                        known[key] = index

    run.shares_choices = True  # type: ignore[attr-defined]
    run.__wrapped__ = original  # type: ignore[attr-defined]
    autotuner_class.run = run


def choices() -> dict[str, dict[tuple[Any, ...], int]]:
    """What was chosen so far in this process, for the reference cache."""
    return {digest: dict(keys) for digest, keys in _CHOICES.items()}


def seed(saved: dict[str, dict[tuple[Any, ...], int]]) -> None:
    """The choices of the job that made the references this one reads."""
    for digest, keys in saved.items():
        _CHOICES.setdefault(digest, {}).update(keys)


def taken_in(path: str) -> list[dict[str, Any]]:
    """The choices kernels defined in `path` (the candidate's file) took from before them."""
    return [facts for file, facts in _TAKEN if file == path]
