"""Keeping the harness's own tools honest while candidate code runs in the same process.

IdentityGuard snapshots the namespaces the checks and timers are made of (builtins, time, torch,
torch.Tensor, torch.nn.functional, torch.cuda and its Event, this package's modules) before the
candidate is imported. After the import and after every call into the candidate it compares
them: anything replaced or shadowed is put back and reported, so a patched timer, comparison or
tensor method can neither fake a result nor go unnoticed.
"""

from __future__ import annotations

import builtins
import sys
import time
import types
from typing import Any

_MISSING = object()


def _owners() -> list[tuple[str, Any]]:
    import _thread
    import json
    import os
    import random
    import threading

    import torch
    import torch.nn.functional as F

    owners: list[tuple[str, Any]] = [
        ("builtins", builtins), ("time", time), ("torch", torch), ("torch.Tensor", torch.Tensor),
        ("torch.nn.functional", F), ("torch.cuda", torch.cuda),
        ("torch.cuda.Event", torch.cuda.Event), ("torch.testing", torch.testing),
        ("torch.nn.Module", torch.nn.Module), ("json", json), ("os", os), ("random", random),
        ("random.Random", random.Random), ("threading", threading), ("sys", sys),
        ("_thread", _thread),
    ]
    # The launch hooks (launches.py) live on these; a candidate putting the originals back is
    # found and undone like any other patch.
    for module_name, attr in (("triton.runtime.jit", "JITFunction"),
                              ("triton.runtime.interpreter", "InterpretedFunction"),
                              ("triton.runtime.autotuner", "Autotuner")):
        owner = getattr(sys.modules.get(module_name), attr, None)
        if owner is not None:
            owners.append((f"{module_name}.{attr}", owner))
    if "cupti.cupti" in sys.modules:  # The GPU timeline's (gpu_timeline.py).
        owners.append(("cupti.cupti", sys.modules["cupti.cupti"]))
    if "torch.utils.cpp_extension" in sys.modules:
        owners.append(("torch.utils.cpp_extension", sys.modules["torch.utils.cpp_extension"]))
    for name, module in list(sys.modules.items()):
        if name.startswith("adaexplore_worker") and isinstance(module, types.ModuleType):
            owners.append((name, module))
    return owners


def reference_classes(models: list[Any]) -> list[tuple[str, Any]]:
    """The classes the reference models are made of (each submodule's, with their bases but
    `object`): a method replaced on one (the task's Model.forward, torch.nn.Conv2d.forward) slows
    or alters the reference beside the candidate without touching the candidate's own calls."""
    seen: dict[Any, str] = {}
    for model in models:
        for sub in model.modules():
            for cls in type(sub).__mro__[:-1]:
                seen.setdefault(cls, f"{cls.__module__}.{cls.__qualname__}")
    return [(name, cls) for cls, name in seen.items()]


def _shadowing(instance: Any) -> dict[str, Any]:
    """The instance's own attributes that shadow a method of its class (`model.forward = f`)."""
    return {name: value for name, value in vars(instance).items()
            if callable(value) and callable(getattr(type(instance), name, None))}


class IdentityGuard:
    def __init__(self, extra: list[tuple[str, Any]] | None = None,
                 instances: list[Any] | None = None) -> None:
        """`extra`: owners watched beside the harness's own (reference_classes); `instances`:
        objects whose methods must stay their class's (the reference models' submodules)."""
        owners = _owners()
        known = {id(owner) for _, owner in owners}
        owners += [(name, owner) for name, owner in extra or [] if id(owner) not in known]
        self._snapshot: list[tuple[str, Any, dict[str, Any]]] = [
            (name, owner, dict(vars(owner))) for name, owner in owners]
        self._instances = [(instance, _shadowing(instance)) for instance in instances or []]

    def check_and_restore(self) -> list[str]:
        """Names replaced or added since the snapshot, after putting the originals back."""
        changed: list[str] = []
        for name, owner, before in self._snapshot:
            now = vars(owner)
            for key, value in list(now.items()):
                original = before.get(key, _MISSING)
                if original is value:
                    continue
                if original is _MISSING:
                    if isinstance(owner, type) and key not in ("__doc__",):
                        changed.append(f"{name}.{key}")  # A shadowing attribute on a class.
                        delattr(owner, key)
                    continue
                changed.append(f"{name}.{key}")
                setattr(owner, key, original)
            for key, original in before.items():
                if key not in now:
                    changed.append(f"{name}.{key}")
                    setattr(owner, key, original)
        for instance, before in self._instances:
            for key, value in _shadowing(instance).items():
                if before.get(key, _MISSING) is not value:
                    changed.append(f"reference model {type(instance).__name__}.{key}")
                    if key in before:
                        setattr(instance, key, before[key])
                    else:
                        delattr(instance, key)
        return changed


_GLOBAL_HOOKS = ("_global_forward_hooks", "_global_forward_pre_hooks", "_global_backward_hooks",
                 "_global_backward_pre_hooks", "_global_forward_hooks_always_called",
                 "_global_forward_hooks_with_kwargs", "_global_module_registration_hooks",
                 "_global_parameter_registration_hooks", "_global_buffer_registration_hooks")
_MODULE_HOOKS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")


def clear_global_hooks(reference_models: list[Any]) -> list[str]:
    """Removes module hooks registered globally or on the reference models (none exist unless
    someone added them: a hook can slow or alter the reference without replacing anything).
    Returns what was removed."""
    import torch.nn.modules.module as module_module

    removed: list[str] = []
    for name in _GLOBAL_HOOKS:
        hooks = getattr(module_module, name, None)
        if hooks:
            removed.append(f"torch.nn.modules.module.{name}")
            hooks.clear()
    for model in reference_models:
        for sub in model.modules():
            for name in _MODULE_HOOKS:
                hooks = getattr(sub, name, None)
                if hooks:
                    removed.append(f"reference model {name}")
                    hooks.clear()
    return removed
