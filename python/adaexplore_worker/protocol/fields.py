"""Every declared field of the schema by message and its JSON type (`schema_fields`): what
tests/golden/protocol/fields.json holds, for the C++ side's tests to compare with its own
declaration (src/workers/protocol.cc), and this side's (test_protocol.py).
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, Union

from .facts import Facts, Status
from .job import JobOptions


def schema_fields() -> dict[str, dict[str, str]]:
    """Every declared field by message and its JSON type: what tests/golden/protocol/fields.json
    holds, for the C++ side to compare with its own declaration."""
    def kinds(hints: dict[str, Any]) -> dict[str, str]:
        return {name: _json_kind(hint) for name, hint in hints.items()}
    return {"options": kinds(typing.get_type_hints(JobOptions)),
            "facts": kinds(typing.get_type_hints(Facts)),
            "nested": _nested_fields(Facts, "facts", {}),
            "status": {s.value: "status" for s in Status}}


def _nested_fields(shape: Any, path: str, groups: dict[str, dict[str, str]]
                   ) -> dict[str, dict[str, str]]:
    """The fields of the TypedDicts `shape` holds, by path ("facts.trials[]"), the way the C++
    side's NestedFactFields() gives them."""
    for name, hint in typing.get_type_hints(shape).items():
        inner, many = _shape_in(hint)
        if inner is not None:
            where = f"{path}.{name}{'[]' if many else ''}"
            groups[where] = {n: _json_kind(h) for n, h in typing.get_type_hints(inner).items()}
            _nested_fields(inner, where, groups)
    return groups


def _shape_in(hint: Any) -> tuple[Any, bool]:
    """The TypedDict a field holds (itself, in a list, or with None), and whether in a list."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        found = [_shape_in(a) for a in args if a is not type(None)]
        return found[0] if len(found) == 1 else (None, False)
    if origin is list:
        return _shape_in(args[0])[0], True
    return (hint, False) if typing.is_typeddict(hint) else (None, False)


def _json_kind(hint: Any) -> str:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        return "|".join(sorted(_json_kind(a) for a in args))
    if hint is type(None):
        return "null"
    if hint is bool:
        return "boolean"
    if hint is int:
        return "integer"
    if hint is float:
        return "number"
    if isinstance(hint, type) and issubclass(hint, Status):
        return "status"
    if origin is Literal:  # The C++ side's enums: their names, in declaration order.
        return "one of " + ", ".join(args)
    if hint is str:
        return "string"
    if hint is list or origin is list:
        return "array"
    return "object"
