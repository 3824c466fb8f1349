"""Kernels the candidate registered in torch's dispatcher for operators that existed before it
was imported (`torch.library.Library("aten", "IMPL")`, `torch._C._dispatch_library`): such a
kernel runs for the reference's torch calls too, so a slow `relu` there slows the reference, not
the candidate. Operators the candidate defines itself (its own custom ops) are its own.

A snapshot is every operator's registrations as the dispatcher prints them
(`torch._C._dispatch_dump`: one line per dispatch key, naming where its kernel was registered),
taken ahead of the candidate's slot; later snapshots are compared with it line by line. Facts
only (`dispatcher_overrides`); the C++ side decides (src/eval/checks.h, `dispatcher_override`).
"""

from __future__ import annotations

import torch

_dump = torch._C._dispatch_dump  # Bound before any candidate is imported.
_all_ops = torch._C._dispatch_get_all_op_names

Snapshot = dict[str, frozenset[str]]


def snapshot() -> Snapshot:
    """Every operator's registrations, one entry per dispatch key's line."""
    taken: Snapshot = {}
    for name in _all_ops():
        try:
            lines = _dump(name).splitlines()
        except RuntimeError:  # An operator removed between the two calls.
            continue
        taken[name] = frozenset(line for line in lines if "registered at" in line
                                and not line.startswith(("debug:", "schema:")))
    return taken


def overrides(before: Snapshot) -> list[str]:
    """Registrations made since `before` on operators it held: "aten::relu: CPU: registered at
    payload.py:9 ..." (the dispatcher's own words), sorted."""
    found: list[str] = []
    for name, lines in snapshot().items():
        old = before.get(name)
        if old is None:
            continue  # An operator of the candidate's own.
        found.extend(f"{name}: {line}" for line in lines - old
                     if not line.split(":", 1)[0].endswith("(inactive)"))
    return sorted(found)


def record(before: Snapshot | None, facts: dict) -> None:
    """Adds what changed since `before` to `facts["dispatcher_overrides"]` (at most 20 lines)."""
    if before is None:
        return
    seen = facts.setdefault("dispatcher_overrides", [])
    for line in overrides(before):
        if line not in seen and len(seen) < 20:
            seen.append(line[:300])
