"""A task's own work inside its call: where the call makes its inputs before it calls the operator
(a TritonBench-G test function), the test's setup calls are marked, so that the kernel trace can
leave their kernels out of the operator's kernel time (trace.py, `operator_us`).

A test is rewritten once, when the task loads (`mark_test`). A call in it goes through `Marks`
when its callee is torch's own (`torch.randn(...)`, `F.pad(...)` with `F` an alias of a torch
module) or a torch.Tensor method (`x.cuda()`, `w.normal_()`), and so does an arithmetic operator
(`torch.rand(n) * 2 * math.pi`), marked only on plain tensors and numbers while torch.Tensor's
own operator methods are in place. At the call, the callee resolved at
load runs inside a profiler range whose name was drawn at load, and only while the trace records:
a candidate that rebinds `torch.randn` or `Tensor.cuda` does not get its code into a range. A
method call is marked only on an exact torch.Tensor (or Parameter), and no call is marked while a
torch function or dispatch mode is active. Everything else is the operator's: the operator's
functions, classes and instances, `backward()` and `torch.autograd` (which run the operator's
backward), any call on a tensor subclass, and work launched on another thread. The marks fail
toward the operator: work nobody marked counts as its.

A candidate cannot use the marks for its own work without reaching into them: a marked callee
opens a range only when the function calling it is one of the test's own (`Marks.admit`, their
code objects) and every argument is a plain tensor, number or the like (no subclass, no object of
the candidate's). Nothing is marked once a callable of torch.Tensor or torch.nn.functional
differs from what it was at load, or one of torch's from what it was when the traced call began
(`Marks.intact`, which the trace reports). Rebinding torch's own, naming the marks' global or
reading a function's `__globals__` is a `harness_access` finding (integrity.py). A range the
candidate forged (it would need the drawn name) shows in the count: `Marks.opened` is how many
the harness opened, and the trace says how many it saw. The marks live in the candidate's process
all the same, so the C++ side trusts the operator's time only when both sides' ranges stand and
the candidate's setup launched the same kernels as the reference's (same test, same seed); and
the trace never counts the candidate's own kernels as setup.
"""

from __future__ import annotations

import ast
import operator
import secrets
import sys
import types
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import torch
from torch.profiler import record_function

MARKS = "__adaexplore_setup__"  # The global the rewritten test reaches its Marks by.
# torch's callees that may run the operator's own code: never setup.
_OPERATOR_PREFIXES = ("torch.autograd", "torch.compile", "torch.func", "torch.vmap",
                      "torch.utils.checkpoint", "torch.cuda.graph", "torch.cuda.CUDAGraph")
_OPERATOR_METHODS = frozenset({"backward", "register_hook", "apply_", "map_", "map2_"})
_PLAIN_TENSORS = (torch.Tensor, torch.nn.Parameter)
_PLAIN_OPERANDS = (*_PLAIN_TENSORS, int, float, bool, complex)
# What a marked call's arguments may be: anything else (a tensor subclass, an object of the
# candidate's, a function) could run the candidate's code inside the range.
_PLAIN_ARGUMENTS = (*_PLAIN_OPERANDS, str, bytes, type(None), type(Ellipsis), slice, range,
                    torch.dtype, torch.device, torch.Size, torch.layout, torch.memory_format)
# Where torch's own Python code looks names up at call time: a candidate that rebinds one of
# them could run its code inside a range, so the trace says whether they stayed as they were:
# torch.Tensor's and torch.nn.functional's since the task loaded, torch's own since the traced
# call began (torch itself rebinds some, manual_seed among them, once its profiler is loaded).
_WATCHED_FROM_LOAD = (torch.Tensor, torch._C.TensorBase, torch.nn.functional)
# The arithmetic operators a test's setup uses, by the operator module's names, and the
# torch.Tensor methods behind each (which a candidate could rebind).
_BINARY = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
           ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul"}
_UNARY = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert"}
_OPERATORS = {name: getattr(operator, name) for name in [*_BINARY.values(), *_UNARY.values()]}


class Marks:
    """The setup callees of one test, resolved at load, and the ranges opened while tracing."""

    def __init__(self) -> None:
        self.name = f"adaexplore.setup.{secrets.token_hex(8)}"
        self.opened = 0
        self._recording = False
        self._callees: dict[str, Any] = {}
        self._methods: dict[str, Any] = {}
        self._codes: set[types.CodeType] = set()
        self.intact = True  # _WATCHED's callables as at load, through the last recording.
        # While timed runs are recorded on the GPU timeline, a range is noted there (on CUPTI's
        # clock) instead of the profiler's (gpu_timeline.Timeline.setup_range).
        self.timeline: Any = None
        self._watched = [(owner, dict(vars(owner))) for owner in _WATCHED_FROM_LOAD]
        self._dunders = {name: (getattr(torch.Tensor, f"__{name}__", None),
                                getattr(torch.Tensor, f"__r{name}__", None))
                         for name in _OPERATORS}

    def admit(self, module: types.ModuleType, functions: list[str]) -> None:
        """The test's functions as `module` defined them (and the functions nested in them):
        the only callers whose setup calls are marked."""
        def add(code: types.CodeType) -> None:
            self._codes.add(code)
            for const in code.co_consts:
                if isinstance(const, types.CodeType):
                    add(const)
        for name in functions:
            code = getattr(module.__dict__.get(name), "__code__", None)
            if isinstance(code, types.CodeType):
                add(code)

    def resolve(self, dotted: str) -> bool:
        """Keeps `dotted` (a torch path: "torch.randn") as it is now; False where it is none."""
        if dotted in self._callees:
            return True
        value: Any = torch
        for part in dotted.split(".")[1:]:
            value = getattr(value, part, None)
            if value is None:
                return False
        if not callable(value):
            return False
        self._callees[dotted] = value
        return True

    def resolve_method(self, name: str) -> bool:
        if name in _OPERATOR_METHODS or name.startswith("__"):
            return False
        method = getattr(torch.Tensor, name, None)
        if not callable(method):
            return False
        self._methods[name] = method
        return True

    def fn(self, dotted: str) -> Callable[..., Any]:
        """The callee the test names `dotted`, as it was at load, marked as setup."""
        return self._marked(self._callees[dotted])

    def method(self, receiver: Any, name: str) -> Callable[..., Any]:
        """`receiver.name`: torch.Tensor's method as it was at load, marked, on a plain tensor;
        on anything else the receiver's own attribute, unmarked."""
        if type(receiver) not in _PLAIN_TENSORS:
            return getattr(receiver, name)
        return self._marked(self._methods[name].__get__(receiver, type(receiver)))

    def op(self, name: str, *operands: Any) -> Any:
        """`operands[0] <name> operands[1]` (or the unary `name`), marked when every operand is a
        plain tensor or number, one at least a tensor, and torch.Tensor's methods for it are the
        ones it had at load."""
        compute = _OPERATORS[name]
        if (self._admits(sys._getframe(1).f_code)
                and all(type(x) in _PLAIN_OPERANDS for x in operands)
                and any(type(x) in _PLAIN_TENSORS for x in operands)
                and (getattr(torch.Tensor, f"__{name}__", None),
                     getattr(torch.Tensor, f"__r{name}__", None)) == self._dunders[name]):
            return self._in_range(compute, *operands)
        return compute(*operands)

    def _admits(self, caller: types.CodeType) -> bool:
        """Whether a call from `caller` may open a range now: recording, torch intact, one of the
        test's own functions calling, and no torch function or dispatch mode active."""
        return (self._recording and self.intact and caller in self._codes
                and torch._C._len_torch_function_stack() == 0
                and torch._C._len_torch_dispatch_stack() == 0)

    def _in_range(self, compute: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        self.opened += 1
        with self.timeline.setup_range() if self.timeline is not None else \
                record_function(self.name):
            return compute(*args, **kwargs)

    @staticmethod
    def _unchanged(watched: list[tuple[Any, dict[str, Any]]]) -> bool:
        """Whether every watched owner's callables are the ones it had, and none was added (a
        method set on torch.Tensor shadows TensorBase's without replacing an entry)."""
        def function(value: Any) -> bool:
            return callable(value) and not isinstance(value, types.ModuleType)
        for owner, then in watched:
            now = vars(owner)
            if any(function(value) and now.get(key) is not value for key, value in then.items()):
                return False
            if any(key not in then and function(value) for key, value in now.items()):
                return False
        return True

    @contextmanager
    def recording(self) -> Iterator[None]:
        """Marks calls (and counts them) while the trace records; the count starts at zero."""
        watched = [*self._watched, (torch, dict(vars(torch)))]
        self.opened, self.intact = 0, self._unchanged(watched)
        self._recording = True
        try:
            yield
        finally:
            self._recording = False
            self.intact = self.intact and self._unchanged(watched)

    def _marked(self, callee: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            if (self._admits(sys._getframe(1).f_code) and _plain(args, 3)
                    and _plain(tuple(kwargs.values()), 3)):
                return self._in_range(callee, *args, **kwargs)
            return callee(*args, **kwargs)
        return call


def _plain(values: tuple[Any, ...] | list[Any], depth: int) -> bool:
    """Whether every value is a plain argument (_PLAIN_ARGUMENTS), in lists, tuples and dicts
    nested up to `depth`."""
    for v in values:
        if type(v) in _PLAIN_ARGUMENTS:
            continue
        if depth > 0 and type(v) in (list, tuple) and _plain(v, depth - 1):
            continue
        if depth > 0 and type(v) is dict and _plain(list(v.keys()) + list(v.values()), depth - 1):
            continue
        return False
    return True


def torch_aliases(tree: ast.Module) -> dict[str, str]:
    """The module-level names a test binds to torch or its modules: {"F": "torch.nn.functional"}.
    `torch` is torch even where only the operator's code imports it (many TritonBench-G tests
    import nothing): the marks resolve it from torch itself, not from the module, whose names the
    candidate's code binds."""
    aliases = {"torch": "torch"}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                bound = a.asname or a.name.split(".")[0]
                if a.name == "torch" or a.name.startswith("torch."):
                    aliases[bound] = a.name if a.asname else "torch"
                else:
                    aliases.pop(bound, None)  # `import numpy as torch`: not torch.
        elif isinstance(node, ast.ImportFrom):
            of_torch = node.level == 0 and node.module is not None and (
                node.module == "torch" or node.module.startswith("torch."))
            for a in node.names:
                if of_torch:
                    aliases[a.asname or a.name] = f"{node.module}.{a.name}"
                else:
                    aliases.pop(a.asname or a.name, None)
    return aliases


class _MarkSetup(ast.NodeTransformer):
    def __init__(self, marks: Marks, aliases: dict[str, str]) -> None:
        self.marks = marks
        self.aliases = aliases
        self.marked = 0

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        dotted = self._torch_path(node.func)
        if dotted is not None:
            if dotted.startswith(_OPERATOR_PREFIXES) or not self.marks.resolve(dotted):
                return node
            node.func = self._marks_call("fn", [ast.Constant(dotted)])
            self.marked += 1
        elif isinstance(node.func, ast.Attribute) and self.marks.resolve_method(node.func.attr):
            node.func = self._marks_call("method", [node.func.value, ast.Constant(node.func.attr)])
            self.marked += 1
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        return self._operator(node, _BINARY.get(type(node.op)), [node.left, node.right])

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        return self._operator(node, _UNARY.get(type(node.op)), [node.operand])

    def _operator(self, node: ast.AST, name: str | None, operands: list[ast.expr]) -> ast.AST:
        """`node` (an arithmetic operator of its rewritten `operands`) as a call of Marks.op,
        when it is one."""
        if name is None:
            return node
        self.marked += 1
        return self._marks_call("op", [ast.Constant(name), *operands])

    def _torch_path(self, func: ast.AST) -> str | None:
        parts: list[str] = []
        while isinstance(func, ast.Attribute):
            parts.append(func.attr)
            func = func.value
        if not isinstance(func, ast.Name) or func.id not in self.aliases:
            return None
        return ".".join([self.aliases[func.id], *reversed(parts)])

    @staticmethod
    def _marks_call(attr: str, args: list[ast.expr]) -> ast.Call:
        return ast.Call(func=ast.Attribute(value=ast.Name(MARKS, ast.Load()), attr=attr,
                                           ctx=ast.Load()), args=args, keywords=[])


def mark_test(tree: ast.Module, marks: Marks) -> int:
    """Rewrites the functions of a test's module (in place) so that their setup calls go through
    `marks`; returns how many calls it marked. Module-level statements are left alone."""
    aliases = torch_aliases(tree)
    rewrite = _MarkSetup(marks, aliases)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            rewrite.visit(node)
    ast.fix_missing_locations(tree)
    return rewrite.marked
