"""A smoke test's smaller task (--shrink N): a KernelBench task's module-level sizes divided by N
before its inputs and weights are made, for machines its own sizes do not fit.

KernelBench's get_inputs() and get_init_inputs() read module globals when called (`batch_size`,
`dim`, `in_channels`), so every integer global above FLOOR becomes max(FLOOR, value // N): the
large sizes shrink, the small ones (kernel sizes, strides, groups, small channel counts) stay.
What changed is reported (facts["shrink"]); the C++ side marks every result and report with it.
Other task kinds make their inputs from their own files: they are left as they are, and say so.

The same globals carry the other size sets a kernel is checked at: the task's own are reported
(task_sizes: those it assigns no value computed from another name), and a job's `sizes` option sets them
(resize_task). Which sets, and what a kernel wrong at one of them means, the C++ side decides.
Either way, what the task computes from its sizes at module level (`bias_shape = (out_channels,
1, 1)`) is computed again from the new ones (`derived`).
"""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Iterator
from typing import Any

from ..task import Task

FLOOR = 64  # No size is made smaller than this, nor is one at or below it changed.


def _assignments(task: Task) -> list[tuple[str, ast.expr]]:
    """Each name the task assigns at module level with the value it assigns, in source order:
    `a = b = v` gives a and b, `a, b = x, y` each its own element, `a += v` the value `a + v`.
    None where its source cannot be read or parsed."""
    try:
        with open(task.module.__file__, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (AttributeError, OSError, SyntaxError, TypeError, ValueError):
        return []
    out: list[tuple[str, ast.expr]] = []
    for node in tree.body:
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            name = node.target.id
            out.append((name, ast.BinOp(ast.Name(name, ast.Load()), node.op, node.value)))
            continue
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        elif isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                out.append((target.id, value))
            elif (isinstance(target, (ast.Tuple, ast.List))
                  and isinstance(value, (ast.Tuple, ast.List))
                  and len(target.elts) == len(value.elts)):
                out += [(e.id, v) for e, v in zip(target.elts, value.elts)
                        if isinstance(e, ast.Name)]
    return out


def _names_in(value: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}


def _literal_sizes(task: Task) -> set[str] | None:
    """The names the task assigns only values without names in them at module level (`dim =
    1000`, `M = 1024 * 2`, `height = width = 128`); None when its source cannot be read (every
    integer then counts). A value computed from another name is derived, not a size."""
    assignments = _assignments(task)
    if not assignments:
        return None
    computed = {name for name, value in assignments if _names_in(value)}
    return {name for name, _ in assignments} - computed


def _rederive(task: Task, changed: set[str]) -> list[str]:
    """Runs the task's module-level assignments again in source order, from the first that uses
    a changed size (`bias_shape = (out_channels, 1, 1)`, `features = dim * 4`), so what the task
    derives from its sizes follows them; the changed sizes keep their new values. The names it
    set again."""
    names, dirty, derived = vars(task.module), set(changed), []
    for target, value in _assignments(task):
        if target in changed or not (_names_in(value) & dirty or target in dirty):
            continue
        try:
            expression = ast.fix_missing_locations(ast.Expression(value))  # `a += v`'s a + v.
            names[target] = eval(compile(expression, "<task>", "eval"), names)
        except Exception:  # noqa: BLE001 - left as loaded; the reference will say if it matters.
            continue
        dirty.add(target)
        if target not in derived:
            derived.append(target)
    return derived


def shrink_task(task: Task, factor: int) -> dict[str, Any]:
    """Divides the task's integer globals above FLOOR by `factor`; the facts of what it did."""
    facts: dict[str, Any] = {"factor": factor, "applies": task.kind == "kernelbench",
                             "changed": {}, "derived": []}
    if factor <= 1 or task.kind != "kernelbench":
        return facts
    names, literal = vars(task.module), _literal_sizes(task)
    for name, value in list(names.items()):
        if name.startswith("__") or type(value) is not int or value <= FLOOR:
            continue  # bool is not int here: `type(True) is int` is False.
        if literal is not None and name not in literal:
            continue  # Computed from a size: made again from the shrunk one below.
        smaller = max(FLOOR, value // factor)
        if smaller != value:
            names[name] = smaller
            facts["changed"][name] = [value, smaller]
    facts["derived"] = _rederive(task, set(facts["changed"]))
    return facts


def task_sizes(task: Task) -> dict[str, int]:
    """A KernelBench task's module-level integers as it loaded them: what the C++ side derives
    the other size sets a correct kernel is checked at from (eval/size_variants.h). Other kinds
    make their inputs otherwise: none."""
    if task.kind != "kernelbench":
        return {}
    literal = _literal_sizes(task)
    return {name: value for name, value in vars(task.module).items()
            if not name.startswith("_") and type(value) is int
            and (literal is None or name in literal)}


def resize_task(task: Task, sizes: dict[str, int]) -> dict[str, Any]:
    """Sets the named module-level integers of a KernelBench task before its inputs and weights
    are made (the `sizes` option: one of the other size sets). The facts of what it did: each
    size changed as [from, to], and the names the task has no integer of."""
    facts: dict[str, Any] = {"applies": task.kind == "kernelbench", "changed": {},
                             "missing": [], "derived": []}
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
    facts["derived"] = _rederive(task, set(facts["changed"]))
    return facts


@contextlib.contextmanager
def restored_after(task: Task, names: set[str]) -> Iterator[dict[str, int]]:
    """The task's named module-level integers (those it has) set back to their values as they
    are now, after the block, however it ends: the size_sets option resizes it set by set.
    Yields those values (each set is applied over them, so one set's sizes never carry over)."""
    values = vars(task.module)
    own = {name: values[name] for name in names if type(values.get(name)) is int}
    try:
        yield own
    finally:
        resize_task(task, own)

