"""The task kinds the worker evaluates, by the name the C++ side sends (TaskFile.kind): one
module each, named as the kind, found here by listing this package, so the table below is made
from the modules and names no kind itself.

A kind's module turns its task file into the harness's one Task shape (task.py):
`load_task(path, spec, device)`. Where a candidate of the kind is not itself Python (a
FlashInfer Solution is JSON), its `candidate_python(text)` gives the Python the static checks
read. Everything else the phases need from a kind travels on the Task it makes.

Adding a kind: a module here named as the kind, and its row on the C++ side (src/task/task_kind.h).
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable

from ..protocol.job import TaskFile
from ..task import LoadError, Task


def _itself(text: str) -> str:
    return text


@dataclass(frozen=True)
class Kind:
    """What differs between task kinds before a Task exists."""
    load_task: Callable[[str, TaskFile | None, str], Task]  # (path, spec, device)
    candidate_python: Callable[[str], str] = _itself  # A candidate's text: Python as it is.


def _discover() -> dict[str, Kind]:
    found: dict[str, Kind] = {}
    for module in sorted(info.name for info in pkgutil.iter_modules(__path__)):
        kind = importlib.import_module(f"{__name__}.{module}")
        found[module] = Kind(kind.load_task,
                             candidate_python=getattr(kind, "candidate_python", _itself))
    return found


KINDS: dict[str, Kind] = _discover()


def lookup(kind: str) -> Kind:
    """The kind named `kind`; a LoadError naming the known ones for any other."""
    found = KINDS.get(kind)
    if found is None:
        raise LoadError(f"unknown task kind {kind!r}: this worker knows "
                        f"{', '.join(sorted(KINDS))}")
    return found
