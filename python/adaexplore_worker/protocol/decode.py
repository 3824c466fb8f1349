"""Reading a JSON message into the protocol's types: a dataclass (a message) by its declared
fields, none missing and none unknown; a TypedDict (a nested fact) by the keys it declares, others
riding along; a Literal, an enum, a list or a dict by what each holds. The worker keeps no
defaults of its own, so whatever does not fit is a ProtocolError naming the key.

A leaf: it imports nothing of the worker's, so the messages (job.py) and the facts (facts.py) are
read by the same rules.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from typing import Any, Literal, Union


class ProtocolError(Exception):
    """A message that does not follow the schema: the sender's bug, never a candidate's fault."""


def decode(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise ProtocolError(f"{where} must be an object, not {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    unknown = sorted(set(data) - set(hints))
    if unknown:
        raise ProtocolError(f"{where} has unknown key(s) {unknown}: the sender speaks another "
                            f"schema")
    missing = [name for name in hints if name not in data]
    if missing:
        raise ProtocolError(f"{where} lacks {missing}: the worker has no defaults of its own")
    return cls(**{name: decode_value(hint, data[name], f"{where}.{name}")
                  for name, hint in hints.items()})


def decode_value(hint: Any, value: Any, where: str) -> Any:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        for arg in args:
            try:
                return decode_value(arg, value, where)
            except ProtocolError:
                continue
        raise ProtocolError(f"{where} = {value!r:.80} is none of {hint}")
    if origin is Literal:
        if value not in args:
            raise ProtocolError(f"{where} = {value!r:.80} is not one of {list(args)}")
        return value
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(value)
        except ValueError:
            raise ProtocolError(f"{where} = {value!r:.80} is not one of "
                                f"{[m.value for m in hint]}") from None
    if dataclasses.is_dataclass(hint):
        return decode(hint, value, where)
    if typing.is_typeddict(hint):  # A nested fact: declared keys checked, others ride along.
        if not isinstance(value, dict):
            raise ProtocolError(f"{where} must be an object, not {type(value).__name__}")
        hints = typing.get_type_hints(hint)
        for key, key_hint in hints.items():
            if key in value:
                decode_value(key_hint, value[key], f"{where}.{key}")
        return value
    if origin is dict:
        if not isinstance(value, dict):
            raise ProtocolError(f"{where} must be an object")
        for key, item in value.items():
            decode_value(args[1], item, f"{where}.{key}")
        return value
    if origin is list:
        if not isinstance(value, list):
            raise ProtocolError(f"{where} must be a list")
        return [decode_value(args[0], v, f"{where}[{i}]") for i, v in enumerate(value)]
    expected: dict[Any, tuple[type, ...]] = {
        type(None): (type(None),), bool: (bool,), int: (int,), float: (int, float), str: (str,),
        list: (list,), dict: (dict,)}
    boolean_as_number = hint in (int, float) and isinstance(value, bool)
    if not isinstance(value, expected[hint]) or boolean_as_number:
        raise ProtocolError(f"{where} = {value!r:.80} is not of type "
                            f"{getattr(hint, '__name__', hint)}")
    return float(value) if hint is float else value
