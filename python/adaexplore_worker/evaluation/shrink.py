"""A smoke test's smaller task (--shrink N): a KernelBench task's module-level sizes divided by N
before its inputs and weights are made, for machines its own sizes do not fit.

KernelBench's get_inputs() and get_init_inputs() read module globals when called (`batch_size`,
`dim`, `in_channels`), so every integer global above FLOOR becomes max(FLOOR, value // N): the
large sizes shrink, the small ones (kernel sizes, strides, groups, small channel counts) stay.
What changed is reported (facts["shrink"]); the C++ side marks every result and report with it.
Other task kinds make their inputs from their own files: they are left as they are, and say so.

The same globals carry the other size sets a kernel is checked at: the task's own are reported
(task_sizes), and a job's `sizes` option sets them (resize_task). Which sets, and what a kernel
wrong at one of them means, the C++ side decides.
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


def task_sizes(task: Task) -> dict[str, int]:
    """A KernelBench task's module-level integers as it loaded them: what the C++ side derives
    the other size sets a correct kernel is checked at from (eval/size_variants.h). Other kinds
    make their inputs otherwise: none."""
    if task.kind != "kernelbench":
        return {}
    return {name: value for name, value in vars(task.module).items()
            if not name.startswith("_") and type(value) is int}


def resize_task(task: Task, sizes: dict[str, int]) -> dict[str, Any]:
    """Sets the named module-level integers of a KernelBench task before its inputs and weights
    are made (the `sizes` option: one of the other size sets). The facts of what it did: each
    size changed as [from, to], and the names the task has no integer of."""
    facts: dict[str, Any] = {"applies": task.kind == "kernelbench", "changed": {},
                             "missing": []}
    if not facts["applies"]:
        return facts
    names = vars(task.module)
    for name, value in sorted(sizes.items()):
        before = names.get(name)
        if type(before) is not int:
            facts["missing"].append(name)
            continue
        names[name] = value
        if value != before:
            facts["changed"][name] = [before, value]
    return facts
