"""Counting the candidate's own kernel launches, on the CPU (Triton's interpreter) as on the GPU.

Hooks installed before the candidate is imported:
  - Triton: every launch goes through `JITFunction.run` (GPU) or `InterpretedFunction.run`
    (interpreter), autotuned and heuristic kernels included. A launch is the candidate's when the
    kernel's Python function was compiled from the candidate's file: identity, not a name, so a
    kernel it defines but never launches, or one that shares a name with PyTorch's, claims nothing.
  - CUDA C++: `torch.utils.cpp_extension.load_inline` and `load` are counted, the `__global__`
    names of the sources they build are kept (the kernel trace's own kernels), and every function
    of the module they return counts its calls.
  - Without a GPU, a CUDA C++ build raises NeedsGpu (the C++ side's "needs a GPU") at once,
    rather than fail inside PyTorch's build with an error that says nothing of the cause.
  - In the interpreter, an autotuned kernel cannot be benchmarked (no driver): its first config
    is taken without trying the others, and the facts say so.
Counting happens only inside a watched call (context.Context.calls); outside, a hook only passes
the launch on.
"""

from __future__ import annotations

import os
import re
import types
from typing import Any, Callable

from . import autotune_share

_GLOBAL = re.compile(r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+"
                     r"(?:__launch_bounds__\s*\([^)]*\)\s*)?(\w+)")


def _text_of(source: str, builder: str) -> str:
    if builder == "load" and os.path.isfile(source):
        with open(source, encoding="utf-8", errors="replace") as f:
            return f.read()
    return source


class NeedsGpu(RuntimeError):
    """A CUDA C++ extension built where there is no GPU to build it for or run it on."""


def _cuda_sources(args: tuple[Any, ...], kwargs: dict[str, Any], builder: str) -> bool:
    """Whether a load_inline/load call builds CUDA code: cuda_sources, or .cu files."""
    if builder == "load_inline":
        given = kwargs.get("cuda_sources", args[2] if len(args) > 2 else None)
        return bool(given)
    sources = kwargs.get("sources", args[1] if len(args) > 1 else None)
    files = [sources] if isinstance(sources, str) else list(sources or [])
    return any(isinstance(f, str) and f.endswith((".cu", ".cuh")) for f in files)


class LaunchCounter:
    def __init__(self, candidate_path: str, interpreting: bool) -> None:
        self.candidate_path = candidate_path
        self.interpreting = interpreting
        self.active = False
        self.kernels: dict[str, int] = {}  # Candidate Triton kernel -> launches in watched calls.
        self.extension_calls: dict[str, int] = {}  # Extension function -> calls.
        self.extensions_built = 0
        self.global_names: set[str] = set()  # __global__ functions of the built sources.
        self.autotune: dict[str, dict[str, Any]] = {}
        self.calls = 0
        self.calls_without_own: list[str] = []
        self._in_call = 0
        self._install()

    # -- a watched call ---------------------------------------------------------------------------

    def start(self) -> None:
        self._in_call = 0
        self.active = True

    def stop(self, during: str, completed: bool) -> None:
        self.active = False
        if completed:
            self.calls += 1
            if self._in_call == 0:
                self.calls_without_own.append(during)

    def facts(self) -> dict[str, Any]:
        return {"kernels": dict(sorted(self.kernels.items())),
                "extension_calls": dict(sorted(self.extension_calls.items())),
                "extensions_built": self.extensions_built, "calls": self.calls,
                "calls_without_own": len(self.calls_without_own),
                "first_without_own": self.calls_without_own[0] if self.calls_without_own else None,
                # Launches through an extension's registered ops (torch.ops) are not seen.
                "complete": self.extensions_built == 0 or bool(self.extension_calls),
                "autotune": list(self.autotune.values())
                + autotune_share.taken_in(self.candidate_path)}

    def own_kernel_names(self) -> set[str]:
        return set(self.kernels) | self.global_names

    # -- hooks ------------------------------------------------------------------------------------

    def _own(self, kernel: Any) -> str | None:
        fn = getattr(kernel, "fn", None)
        code = getattr(fn, "__code__", None)
        if code is not None and code.co_filename == self.candidate_path:
            return fn.__name__
        return None

    def _count(self, table: dict[str, int], name: str) -> None:
        table[name] = table.get(name, 0) + 1
        self._in_call += 1

    def _install(self) -> None:
        try:
            from triton.runtime import jit
        except ImportError:
            jit = None
        if jit is not None:
            self._hook_run(jit.JITFunction)
            try:
                from triton.runtime import interpreter
                self._hook_run(interpreter.InterpretedFunction)
            except ImportError:
                pass
            if self.interpreting:
                from triton.runtime import autotuner
                self._first_config(autotuner.Autotuner)
        import torch.utils.cpp_extension as cpp_extension
        for name in ("load_inline", "load"):
            setattr(cpp_extension, name, self._building(getattr(cpp_extension, name), name))

    def _hook_run(self, cls: type) -> None:
        original = cls.run
        counter = self

        def run(kernel: Any, *args: Any, **kwargs: Any) -> Any:
            launched = original(kernel, *args, **kwargs)  # A launch that raised is none.
            if counter.active and not kwargs.get("warmup"):
                name = counter._own(kernel)
                if name is not None:
                    counter._count(counter.kernels, name)
            return launched

        run.__wrapped__ = original  # type: ignore[attr-defined]
        cls.run = run

    def _first_config(self, cls: type) -> None:
        """The interpreter has no benchmarker: every config 'takes' the same time, so the
        autotuner keeps the first one, and nothing is launched to find that out."""
        counter = self

        def bench(tuner: Any, *args: Any, config: Any, **meta: Any) -> list[float]:
            name = getattr(getattr(tuner, "base_fn", None), "__name__", "?")
            counter.autotune.setdefault(name, {
                "kernel": name, "configs": len(getattr(tuner, "configs", [])),
                "chosen": str(getattr(tuner, "configs", [config])[0]),
                "how": "first config taken (Triton's interpreter cannot benchmark)"})
            return [0.0, 0.0, 0.0]

        cls._bench = bench

    def _building(self, original: Callable[..., Any], name: str) -> Callable[..., Any]:
        counter = self

        def build(*args: Any, **kwargs: Any) -> Any:
            if counter.interpreting and _cuda_sources(args, kwargs, name):
                raise NeedsGpu(f"{name} builds CUDA C++ sources, and this evaluation runs on the "
                               f"CPU: a CUDA kernel is built and checked only on a GPU")
            counter.extensions_built += 1
            # load_inline(name, cpp_sources, cuda_sources, ...) takes source text; load(name,
            # sources, ...) takes file names.
            given = list(args[1:3]) + [kwargs.get(k) for k in ("cpp_sources", "cuda_sources",
                                                                "sources")]
            for sources in given:
                for text in [sources] if isinstance(sources, str) else (sources or []):
                    if isinstance(text, str):
                        counter.global_names.update(_GLOBAL.findall(_text_of(text, name)))
            module = original(*args, **kwargs)
            if isinstance(module, types.ModuleType):
                counter._count_calls(module)
            return module

        build.__wrapped__ = original  # type: ignore[attr-defined]
        return build

    def _count_calls(self, module: types.ModuleType) -> None:
        for attr, value in list(vars(module).items()):
            if attr.startswith("_") or not callable(value) or isinstance(value, type):
                continue
            setattr(module, attr, self._calling(value, f"{module.__name__}.{attr}"))

    def _calling(self, fn: Callable[..., Any], name: str) -> Callable[..., Any]:
        counter = self

        def call(*args: Any, **kwargs: Any) -> Any:
            result = fn(*args, **kwargs)
            if counter.active:
                counter._count(counter.extension_calls, name)
            return result

        return call
