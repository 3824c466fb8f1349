"""The task kinds the worker evaluates, by the name the C++ side sends (protocol.TaskKind): one
module each, and here the one table that says which module serves which kind.

A kind's module turns its task file into the harness's one Task shape (task.py):
`load_task(path, spec, device)`. Where a candidate of the kind is not itself Python (a
FlashInfer Solution is JSON), its `candidate_python(text)` gives the Python the static checks
read. Everything else the phases need from a kind travels on the Task it makes.

Adding a kind: a module here, a row in KINDS, the name in protocol.TaskKind and on the C++ side
(src/task/task_kind.h).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..protocol import TaskFile
from ..task import LoadError, Task
from . import flashinfer, kernelbench, tritonbench


def _itself(text: str) -> str:
    return text


@dataclass(frozen=True)
class Kind:
    """What differs between task kinds before a Task exists."""
    load_task: Callable[[str, TaskFile | None, str], Task]  # (path, spec, device)
    candidate_python: Callable[[str], str] = _itself  # A candidate's text: Python as it is.


KINDS: dict[str, Kind] = {
    "kernelbench": Kind(kernelbench.load_task),
    "flashinfer": Kind(flashinfer.load_task, candidate_python=flashinfer.candidate_python),
    "tritonbench": Kind(tritonbench.load_task),
}


def lookup(kind: str) -> Kind:
    """The kind named `kind`; a LoadError naming the known ones for any other."""
    found = KINDS.get(kind)
    if found is None:
        raise LoadError(f"unknown task kind {kind!r}: this worker knows "
                        f"{', '.join(sorted(KINDS))}")
    return found
