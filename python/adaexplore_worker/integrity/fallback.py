"""Watching for fallbacks: an exception that the candidate's own code catches and goes on from
while ModelNew is called. That is what a fallback to PyTorch does when a kernel fails; a try block
that never catches anything during a call (around a weight copy in __init__, a parse, a flag) is
not, and stays a finding on the source only.

The candidate is compiled from its own source with two additions, and nothing else changed (line
numbers stay; Triton reads its kernels back from the file, which is untouched):
  - every `except` handler first calls the recorder with the exception it caught;
  - every `with` body passes any exception leaving it to the recorder, then raises it on: a
    context manager whose __exit__ swallows it (contextlib.suppress, or one of the candidate's
    own) has then been seen.
An exception seen during a call and not passed on by the call (raised out of it, or as the cause
or context of what was raised) was swallowed. StopIteration and GeneratorExit are how loops and
generators end, not failures. The recorder costs nothing unless an exception is caught.
"""

from __future__ import annotations

import ast
import sys
import types
from typing import Any

RECORDER = "__adaexplore_caught__"  # The global the instrumented code calls.
MAX_SWALLOWED = 20
_ENDINGS = (StopIteration, StopAsyncIteration, GeneratorExit)


class FallbackWatch:
    """Records the exceptions the candidate's handlers see while a call is watched."""

    def __init__(self) -> None:
        self.during = ""
        self.active = False
        self.swallowed: list[dict[str, Any]] = []
        self._open: dict[int, tuple[BaseException, dict[str, Any]]] = {}

    def __call__(self, line: int) -> None:
        """Called by the candidate's handlers (as RECORDER) with their line."""
        if not self.active:
            return
        exception = sys.exc_info()[1]
        if exception is None or isinstance(exception, _ENDINGS):
            return
        self._open.setdefault(id(exception), (exception, {
            "line": line, "type": type(exception).__qualname__,
            "message": str(exception).strip().split("\n")[0][:300], "during": self.during}))

    def start(self, during: str) -> None:
        self.during = during
        self._open.clear()
        self.active = True

    def stop(self, raised: BaseException | None) -> None:
        """Ends a call: what was caught and is not in the chain of `raised` was swallowed."""
        self.active = False
        passed_on: set[int] = set()
        while raised is not None and id(raised) not in passed_on:
            passed_on.add(id(raised))
            raised = raised.__cause__ or raised.__context__
        for key, (_, entry) in self._open.items():
            if key not in passed_on:
                self._record(entry)
        self._open.clear()

    def _record(self, entry: dict[str, Any]) -> None:
        for seen in self.swallowed:
            if seen["line"] == entry["line"] and seen["type"] == entry["type"]:
                seen["count"] += 1
                return
        if len(self.swallowed) < MAX_SWALLOWED:
            self.swallowed.append({**entry, "count": 1})


class _Instrument(ast.NodeTransformer):
    def _call(self, line: int) -> ast.stmt:
        return ast.Expr(ast.Call(ast.Name(RECORDER, ast.Load()), [ast.Constant(line)], []))

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
        self.generic_visit(node)
        call = ast.copy_location(self._call(node.lineno), node)
        node.body.insert(0, call)
        return node

    def _wrap_with(self, node: ast.With | ast.AsyncWith) -> ast.AST:
        self.generic_visit(node)
        handler = ast.ExceptHandler(ast.Name("BaseException", ast.Load()), None,
                                    [self._call(node.lineno), ast.Raise(None, None)])
        guarded = ast.Try(node.body, [handler], [], [])
        ast.copy_location(guarded, node.body[0])
        ast.copy_location(handler, node)
        node.body = [guarded]
        return node

    def visit_With(self, node: ast.With) -> ast.AST:
        return self._wrap_with(node)

    def visit_AsyncWith(self, node: ast.AsyncWith) -> ast.AST:
        return self._wrap_with(node)


def instrumented_code(source: str, path: str) -> types.CodeType:
    """The candidate's module code, with every handler reporting to RECORDER."""
    tree = ast.parse(source, path)
    tree = ast.fix_missing_locations(_Instrument().visit(tree))
    return compile(tree, path, "exec", dont_inherit=True)
