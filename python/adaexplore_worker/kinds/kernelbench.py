"""KernelBench tasks: a Python file defining `class Model(nn.Module)`, `get_inputs()` and
`get_init_inputs()`, already in the harness's Task shape.

The file is executed into a fresh module object that is never registered in sys.modules, so the
candidate cannot reach it by name (KernelBench's shared-globals hole). A candidate is a Python
file defining `class ModelNew(nn.Module)` (load.py imports it).
"""

from __future__ import annotations

import types

from ..protocol.job import TaskFile
from ..task import LoadError, Task, exec_module


def load_task(path: str, spec: TaskFile | None, device: str) -> Task:
    """The task at `path` (`spec` and `device`: the signature every kind shares; a KernelBench
    task needs neither)."""
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
