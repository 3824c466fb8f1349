"""Reference outputs made once per task: the zygote's index of reference files, and the child's
side that writes and reads them.

A child that finds no entry for its job's reference key makes the references as always, writes
them to the cache folder and tells the zygote the file's SHA-256 before the candidate is imported
(the zygote takes that message only in the reference phase, so candidate code cannot forge one).
A later child of the same key reads the file and checks the hash first: a file changed since
(by a candidate that ran as the same user) is not used, and the references are made again.

The key (task source, every option the references depend on, the device and the worker's
software) is the C++ side's (eval/reference_key.h); the size bound comes from the zygote's
command line. The folder is emptied when the zygote starts: entries never outlive the software
that made them.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import time
from dataclasses import dataclass
from typing import Any

FORMAT = 1


@dataclass(frozen=True)
class Plan:
    """What one child does with the cache: read `read_path` (when its hash is known), and store
    what it makes at `store_path` when it fits in `max_bytes`."""
    key: str
    read_path: str | None
    read_sha256: str | None
    store_path: str
    max_bytes: int


@dataclass
class Entry:
    path: str
    sha256: str
    size: int
    used: float


class ReferenceCache:
    """The zygote's index: key -> file, least recently used evicted past `max_bytes`."""

    def __init__(self, folder: str, max_bytes: int) -> None:
        self.folder = folder
        self.max_bytes = max_bytes
        self.entries: dict[str, Entry] = {}
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder, exist_ok=True)

    @property
    def enabled(self) -> bool:
        return self.max_bytes > 0

    def plan(self, key: str, job_id: str) -> Plan:
        entry = self.lookup(key)
        return Plan(key=key, read_path=entry.path if entry else None,
                    read_sha256=entry.sha256 if entry else None,
                    store_path=os.path.join(self.folder, f"{_safe_key(key)}-{_safe_key(job_id)}.pt"),
                    max_bytes=self.max_bytes)

    def lookup(self, key: str) -> Entry | None:
        entry = self.entries.get(key)
        if entry is None:
            return None
        if not os.path.exists(entry.path):
            self.drop(key)
            return None
        entry.used = time.monotonic()
        return entry

    def add(self, key: str, path: str, sha256: str, size: int) -> bool:
        """Records the file a child wrote for `key` at `path` (the plan's store_path); false (and
        the file removed) when it alone exceeds the bound. It replaces an earlier entry."""
        if size > self.max_bytes:
            _remove(path)
            return False
        if key in self.entries and self.entries[key].path != path:
            self.drop(key)
        self.entries[key] = Entry(path=path, sha256=sha256, size=size, used=time.monotonic())
        while self.total_bytes() > self.max_bytes:
            oldest = min(self.entries, key=lambda k: self.entries[k].used)
            self.drop(oldest)
        return True

    def drop(self, key: str) -> None:
        entry = self.entries.pop(key, None)
        if entry is not None:
            _remove(entry.path)

    def total_bytes(self) -> int:
        return sum(e.size for e in self.entries.values())


# -- the child's side ------------------------------------------------------------------------------

def read(plan: Plan) -> tuple[dict[str, Any] | None, str]:
    """The entry the plan names and what became of it: (payload, "hit"), or (None, "changed")
    when the file is gone or its bytes are not the recorded ones, or (None, "") with no entry."""
    if plan.read_path is None or plan.read_sha256 is None:
        return None, ""
    try:
        with open(plan.read_path, "rb") as f:
            data = f.read()
    except OSError:
        return None, "changed"
    payload = decode(data, plan.read_sha256)
    return (payload, "hit") if payload is not None else (None, "changed")


def store(plan: Plan, payload: dict[str, Any], send: Any) -> str:
    """Writes the payload for later jobs and tells the zygote its hash (`send`: the channel's);
    "stored", or "not_stored" when it does not fit."""
    data = encode(payload)
    if len(data) > plan.max_bytes:
        return "not_stored"
    sha256 = write(plan.store_path, data)
    send({"type": "references", "key": plan.key, "sha256": sha256, "bytes": len(data)})
    return "stored"


def encode(payload: dict[str, Any]) -> bytes:
    import torch
    buffer = io.BytesIO()
    torch.save({"format": FORMAT, **payload}, buffer)
    return buffer.getvalue()


def decode(data: bytes, sha256: str) -> dict[str, Any] | None:
    """The payload of a cache file, or None when its bytes are not the ones recorded."""
    if hashlib.sha256(data).hexdigest() != sha256:
        return None
    import torch
    payload = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        return None
    return payload


def write(path: str, data: bytes) -> str:
    """Writes `data` to `path` atomically; returns its SHA-256."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return hashlib.sha256(data).hexdigest()


def _safe_key(key: str) -> str:
    return "".join(ch for ch in key if ch.isalnum())[:128] or "key"


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
