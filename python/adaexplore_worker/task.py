"""The one shape every task kind is adapted to (`Task`), its expert kernel (`Expert`), and the
error a task or candidate that cannot be used raises (`LoadError`).

A leaf: it imports nothing of the worker's, so the kinds (kinds/) and the phases that use a Task
import it without importing each other.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Any, Callable


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
    themselves to it (kinds/flashinfer.py, kinds/tritonbench.py): they say how a candidate file
    becomes the module to import (`prepare_candidate`) and that module a model class
    (`adapt_candidate`)."""
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
    # How the candidate is called, as adapt_candidate found it (facts.interface): a FlashInfer
    # candidate's entry point and whether it takes its outputs (destination-passing style).
    interface: dict[str, Any] = field(default_factory=dict)
    # The expert kernel the candidate is also timed against (with expert_baseline), if any.
    expert: Expert | None = None
    # Where the call makes its own inputs (a TritonBench-G test): its setup calls' marks
    # (setup_marks.Marks), set as the global setup_marks.MARKS of the candidate's module too.
    setup_marks: Any = None


def exec_module(module: types.ModuleType, source: str, filename: str) -> None:
    """Runs a task's `source` in `module` (a fresh module object, never registered in
    sys.modules: the candidate cannot reach it by name, KernelBench's shared-globals hole)."""
    module.__file__ = filename
    exec(compile(source, filename, "exec"), module.__dict__)
