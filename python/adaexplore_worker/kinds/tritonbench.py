"""TritonBench-G tasks: an operator file, split at its separator line (146 '#') into the
reference Triton code and its test, as the harness's Task.

The test function (`test_*`, the one the file calls at the end) is the check: it makes its own
inputs and returns its results (a dict of tensors, numbers, tuples). The task's model runs the
test over the reference code, a candidate's runs the same test over the candidate's code, both
under the same seed, so TritonBench's call accuracy (the test runs) and execution accuracy (its
results match the reference's) become the harness's trials; the reference operator is the
baseline. The model's one input is that seed: every trial and every timed run makes fresh
inputs, and every timed output is checked against the reference's for the same seed.

Both parts are written to files and imported (Triton's @jit reads its source back). In CPU mode
(Triton's interpreter) the device the code names, "cuda", is rewritten to the CPU.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import random
import types
from typing import Any

import torch

from ..protocol.job import TaskFile
from ..task import LoadError, Task
from ..timing.setup_marks import MARKS, Marks, mark_test

SEPARATOR = "#" * 146
TASK_MODULE = "adaexplore_task_tritonbench"  # Never registered in sys.modules.


def split(text: str, name: str) -> tuple[str, str]:
    """(operator code, test code) of an operator file; a LoadError when it has no separator."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.strip() == SEPARATOR:
            return "".join(lines[:i]), "".join(lines[i + 1:])
    raise LoadError(f"{name} has no separator line ({len(SEPARATOR)} '#') between the operator "
                    f"code and its test: not a TritonBench-G operator file")


def test_part(test: str, name: str) -> tuple[str, str, list[str]]:
    """The test's imports and definitions (no module-level calls: the file's own
    `result_gold = test_...()` is dropped), the name of the test function it calls and the names
    of every function it defines."""
    try:
        tree = ast.parse(test)
    except SyntaxError as e:
        raise LoadError(f"{name}: the test part does not parse: {e}") from None
    kept: list[ast.stmt] = []
    called: list[str] = []
    defined: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.ClassDef)):
            kept.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            kept.append(node)
            defined.append(node.name)
        else:
            for sub in ast.walk(node):
                if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name)
                        and sub.func.id.startswith("test")):
                    called.append(sub.func.id)
    candidates = [n for n in called if n in defined] or [n for n in defined
                                                         if n.startswith("test")]
    if not candidates:
        raise LoadError(f"{name}: the test part defines no test_* function")
    return ast.unparse(ast.Module(body=kept, type_ignores=[])), candidates[-1], defined


def marked(test_code: str, marks: Marks) -> str:
    """The test with its setup calls marked (setup_marks.py): after for_device, which rewrites
    `x.cuda()` as the plain method call it still is."""
    tree = ast.parse(test_code)
    mark_test(tree, marks)
    return ast.unparse(tree)


class _ToDevice(ast.NodeTransformer):
    """"cuda" as the code names its device, to `device` (CPU mode only)."""

    def __init__(self, device: str) -> None:
        self.device = device

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, str) and (node.value == "cuda" or
                                            node.value.startswith("cuda:")):
            return ast.copy_location(ast.Constant(self.device), node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "cuda" and not node.args:
            node.func.attr = "cpu"
        return node


def for_device(code: str, device: str) -> str:
    if device != "cpu":
        return code
    tree = _ToDevice(device).visit(ast.parse(code))
    return ast.unparse(ast.fix_missing_locations(tree))


def flatten(value: Any) -> list[torch.Tensor]:
    """A test's results as a flat list of tensors, in a fixed order (dicts in insertion order)."""
    out: list[torch.Tensor] = []
    if isinstance(value, torch.Tensor):
        out.append(value.detach())
    elif isinstance(value, dict):
        for v in value.values():
            out.extend(flatten(v))
    elif isinstance(value, (list, tuple)):
        for v in value:
            out.extend(flatten(v))
    elif isinstance(value, bool):
        out.append(torch.tensor(value))
    elif isinstance(value, (int, float)):
        out.append(torch.tensor(float(value), dtype=torch.float64))
    return out  # None, strings and other objects carry no checkable value.


def _import(path: str, module_name: str, marks: Marks) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise LoadError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    module.__dict__[MARKS] = marks
    spec.loader.exec_module(module)
    return module


def _test_model(module: types.ModuleType, test_name: str) -> type:
    test = getattr(module, test_name, None)
    if not callable(test):
        raise LoadError(f"the test function {test_name} is missing")

    class TestModel(torch.nn.Module):
        def forward(self, seed: torch.Tensor) -> tuple[torch.Tensor, ...]:
            torch.manual_seed(int(seed))
            random.seed(int(seed))
            with torch.enable_grad():  # Some tests run backward; the harness calls under no_grad.
                return tuple(flatten(test()))

    return TestModel


def load_task(path: str, spec: TaskFile | None, device: str) -> Task:
    """The operator file at `path`, its code made to run on `device` (`spec`: the signature every
    kind shares; it names nothing more than the kind)."""
    name = os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        code, test = split(f.read(), name)
    marks = Marks()
    test_code, test_name, test_functions = test_part(test, name)
    try:
        code = for_device(code, device)
        test_code = marked(for_device(test_code, device), marks)
    except SyntaxError as e:
        raise LoadError(f"{name}: the operator code does not parse: {e}") from None
    composed = os.path.join(os.path.dirname(path), "task_composed.py")
    with open(composed, "w", encoding="utf-8") as f:
        f.write(code + "\n\n" + test_code + "\n")
    module = _import(composed, TASK_MODULE, marks)
    marks.admit(module, test_functions)
    model = _test_model(module, test_name)

    def get_inputs() -> list[Any]:
        # A 0-d tensor, not an int: its form is the same every run (inputs.InputSpec).
        return [torch.randint(0, 2**31 - 1, (), dtype=torch.int64)]

    def prepare(candidate_path: str) -> str:
        with open(candidate_path, encoding="utf-8") as f:
            text = f.read()
        own = split(text, "candidate")[0] if SEPARATOR in text else text
        try:
            own = for_device(own, device)
        except SyntaxError:
            pass  # Imported as it is: the import reports the syntax error.
        joined = os.path.join(os.path.dirname(candidate_path), "candidate_composed.py")
        with open(joined, "w", encoding="utf-8") as f:
            f.write(own + "\n\n" + test_code + "\n")
        return joined

    def adapt(candidate: types.ModuleType, entry_file: str) -> type:
        marks.admit(candidate, test_functions)  # The test's functions, as this module has them.
        return _test_model(candidate, test_name)

    return Task(module=module, model_class=model, get_inputs=get_inputs,
                get_init_inputs=lambda: [], kind="tritonbench", keeps_dtypes=True,
                prepare_candidate=prepare, adapt_candidate=adapt,
                description={"operator": name, "test": test_name},
                may_leave_outputs_unwritten=True, setup_marks=marks)
