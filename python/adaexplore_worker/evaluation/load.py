"""Loading a job's task, through its kind (kinds/), and its candidate.

The candidate is imported from its own file as its own module: Triton's @jit needs real source it
can read back. The task's kind decides which file that is (candidate_file) and what model class
the module makes (load_candidate); KernelBench's is the module's ModelNew.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Callable

from .. import kinds
from ..integrity import fallback
from ..protocol.job import TaskFile
from ..task import LoadError, Task
from ..timing import setup_marks


def load_task(path: str, spec: TaskFile | None = None, device: str = "cpu") -> Task:
    """The task at `path`, of the kind `spec` names (KernelBench without one)."""
    kind = spec.kind if spec is not None else "kernelbench"
    return kinds.lookup(kind).load_task(path, spec, device)


def candidate_python(kind: str, text: str) -> str:
    """The Python a candidate of a task of `kind` holds, for the static checks: a FlashInfer
    Solution's Python sources, else the text itself."""
    return kinds.lookup(kind).candidate_python(text)


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
    if task is not None and task.setup_marks is not None:
        module.__dict__[setup_marks.MARKS] = task.setup_marks
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
