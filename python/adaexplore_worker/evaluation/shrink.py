"""A smoke test's smaller task (--shrink N): a KernelBench task's module-level sizes divided by N
before its inputs and weights are made, for machines its own sizes do not fit.

KernelBench's get_inputs() and get_init_inputs() read module globals when called (`batch_size`,
`dim`, `in_channels`), so every integer global above FLOOR becomes max(FLOOR, value // N): the
large sizes shrink, the small ones (kernel sizes, strides, groups, small channel counts) stay.
What changed is reported (facts["shrink"]); the C++ side marks every result and report with it.
Other task kinds make their inputs from their own files: they are left as they are, and say so.
"""

from __future__ import annotations

from typing import Any

from ..task import Task

FLOOR = 64  # No size is made smaller than this, nor is one at or below it changed.


def shrink_task(task: Task, factor: int) -> dict[str, Any]:
    """Divides the task's integer globals above FLOOR by `factor`; the facts of what it did."""
    facts: dict[str, Any] = {"factor": factor, "applies": task.kind == "kernelbench",
                             "changed": {}}
    if factor <= 1 or task.kind != "kernelbench":
        return facts
    names = vars(task.module)
    for name, value in list(names.items()):
        if name.startswith("__") or type(value) is not int or value <= FLOOR:
            continue  # bool is not int here: `type(True) is int` is False.
        smaller = max(FLOOR, value // factor)
        if smaller != value:
            names[name] = smaller
            facts["changed"][name] = [value, smaller]
    return facts
