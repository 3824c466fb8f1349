"""Reference outputs made once per task and worker, kept in memory: the zygote's index of sealed
memory files, and the child's side that writes and reads them.

The zygote gives a child either the entry of its job's reference key (a memory file, read-only
forever) or, when there is none, an empty memory file to fill. The child that fills one makes the
references as always, writes them, seals the file against any further change (`F_SEAL_WRITE`,
`_GROW`, `_SHRINK`, then `_SEAL`) and tells the zygote, all before the candidate is imported (the
zygote takes that message only in the reference phase, so candidate code cannot forge one). The
zygote keeps the file only if it finds it sealed: from then on no process can change its bytes,
so a later child reads it without a hash. Nothing touches a disk.

Jobs of a key whose references a child is making now wait before they are forked
(`ReferenceCache.in_flight`), so candidates of one task that arrive together make them once.

The key (task source, every option the references depend on, the device and the worker's
software) is the C++ side's (eval/reference_key.h); the size bound comes from the zygote's
command line. The entries live as long as the zygote: they never outlive the software that made
them.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import os
import time
from dataclasses import dataclass
from typing import Any

FORMAT = 3
JUDGE_ONLY_BYTES = 4 << 30  # A job's references kept for its judge alone, at most.
SEALS = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL


@dataclass(frozen=True)
class Plan:
    """What one child does with the cache: read `read_fd` (a sealed entry), or fill `store_fd`
    when the payload fits in `max_bytes`. The descriptors are the child's copies."""
    key: str
    read_fd: int | None
    store_fd: int | None
    max_bytes: int
    cached: bool = True  # False: filled for the job's judge alone (judge.py), kept by no cache.

    @property
    def fds(self) -> tuple[int, ...]:
        return tuple(fd for fd in (self.read_fd, self.store_fd) if fd is not None)


@dataclass
class Entry:
    fd: int
    size: int
    used: float


class ReferenceCache:
    """The zygote's index: key -> sealed memory file, least recently used evicted past
    `max_bytes`; and the keys a child is filling now, with the file it fills."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.entries: dict[str, Entry] = {}
        self.filling: dict[str, tuple[str, int]] = {}  # key -> (job id, the file it fills)
        # Keys whose references are larger than the bound: never filled again, and their jobs
        # never wait for one another.
        self.too_big: set[str] = set()

    @property
    def enabled(self) -> bool:
        return self.max_bytes > 0

    def in_flight(self, key: str) -> bool:
        """A child is making this key's references now: a job of it waits rather than make
        them too."""
        return key in self.filling and key not in self.entries

    def plan(self, key: str, job_id: str) -> Plan | None:
        """The job's use of the cache; None for a key known not to fit."""
        if key in self.too_big:
            return None
        entry = self.lookup(key)
        if entry is not None:
            return Plan(key=key, read_fd=entry.fd, store_fd=None, max_bytes=self.max_bytes)
        fd = os.memfd_create(f"adaexplore-references-{job_id}"[:240],
                             os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        self.filling[key] = (job_id, fd)
        return Plan(key=key, read_fd=None, store_fd=fd, max_bytes=self.max_bytes)

    def judge_only(self, job_id: str) -> Plan:
        """A file for a job whose references no cache keeps (no key, the cache off, or too
        large for it): the child fills and seals it all the same, for its judge (judge.py)."""
        fd = os.memfd_create(f"adaexplore-judged-{job_id}"[:240],
                             os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        return Plan(key="", read_fd=None, store_fd=fd,
                    max_bytes=max(self.max_bytes, JUDGE_ONLY_BYTES), cached=False)

    def lookup(self, key: str) -> Entry | None:
        entry = self.entries.get(key)
        if entry is not None:
            entry.used = time.monotonic()
        return entry

    def stored(self, key: str, job_id: str, size: Any) -> bool:
        """A child says it filled and sealed its file for `key` (or that the references are
        `size` bytes, too many to keep): kept when it is that child's file, sealed, of the size
        it says and within the bound."""
        job, fd = self.filling.get(key, ("", -1))
        if job != job_id:
            return False
        del self.filling[key]
        if isinstance(size, int) and size > self.max_bytes:
            self.too_big.add(key)
        if (not isinstance(size, int) or size > self.max_bytes or not is_sealed(fd)
                or os.fstat(fd).st_size != size):
            os.close(fd)
            return False
        self.drop(key)
        self.entries[key] = Entry(fd=fd, size=size, used=time.monotonic())
        while self.total_bytes() > self.max_bytes:
            self.drop(min(self.entries, key=lambda k: self.entries[k].used))
        return True

    def forget(self, job_id: str) -> None:
        """The job is past its reference phase (or gone) without storing: its file goes, and
        jobs of its key may start."""
        for key, (job, fd) in list(self.filling.items()):
            if job == job_id:
                del self.filling[key]
                os.close(fd)

    def drop(self, key: str) -> None:
        entry = self.entries.pop(key, None)
        if entry is not None:
            os.close(entry.fd)

    def total_bytes(self) -> int:
        return sum(e.size for e in self.entries.values())

    def close(self) -> None:
        for key in list(self.entries):
            self.drop(key)
        for _, fd in self.filling.values():
            os.close(fd)
        self.filling.clear()


# -- the child's side ------------------------------------------------------------------------------

def read(plan: Plan) -> tuple[dict[str, Any] | None, str]:
    """The entry the plan names and what became of it: (payload, "hit"), or (None, "changed")
    when it is not a sealed file of this format, or (None, "") with no entry. The tensors are
    read from the file one at a time: never a second copy of the whole entry in host memory."""
    if plan.read_fd is None:
        return None, ""
    if not is_sealed(plan.read_fd):
        return None, "changed"
    payload = decode(_FdFile(plan.read_fd))
    return (payload, "hit") if payload is not None else (None, "changed")


def store(plan: Plan, payload: dict[str, Any], send: Any) -> str:
    """Writes the payload into the plan's file, seals it and tells the zygote (`send`: the
    channel's); "stored", or "not_stored" when it does not fit or the file is not what was
    written once sealed (another process of the same user reached it before the seal).

    Its size is known from its tensors before anything is written, and the tensors are written
    one at a time, from the device when they are there: a task's references far larger than the
    bound cost no host memory, and those that fit cost one tensor's worth beside the file."""
    if plan.store_fd is None:
        return "not_stored"
    if (size := payload_bytes(payload)) > plan.max_bytes:
        send({"type": "references", "key": plan.key, "bytes": size})  # No later job waits for it.
        return "not_stored"
    file = _FdFile(plan.store_fd)
    try:
        encode(payload, file)
        if file.size > plan.max_bytes:
            os.ftruncate(plan.store_fd, 0)
            send({"type": "references", "key": plan.key, "bytes": file.size})
            return "not_stored"
        fcntl.fcntl(plan.store_fd, fcntl.F_ADD_SEALS, SEALS)
    except OSError:  # EBUSY: someone holds a writable mapping of it.
        return "not_stored"
    if file.written is None or _digest(plan.store_fd) != file.written.digest():
        return "not_stored"
    send({"type": "references", "key": plan.key, "bytes": file.size})
    return "stored"


def payload_bytes(payload: Any) -> int:
    """The bytes of the payload's tensors' storages, what its file holds but for a few KiB."""
    import torch
    if isinstance(payload, torch.Tensor):
        return payload.untyped_storage().nbytes()
    if isinstance(payload, dict):
        return sum(payload_bytes(v) for v in payload.values())
    if isinstance(payload, (list, tuple)):
        return sum(payload_bytes(v) for v in payload)
    return 0


def encode(payload: dict[str, Any], file: Any) -> None:
    """torch.save, which copies each tensor's storage to the host as it writes it."""
    import torch
    torch.save({"format": FORMAT, **payload}, file)


def decode(file: Any) -> dict[str, Any] | None:
    import torch
    try:
        payload = torch.load(file, map_location="cpu", weights_only=True)
    except Exception:  # noqa: BLE001 - not an entry this code wrote.
        return None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        return None
    return payload


def write_sealed(fd: int, data: bytes) -> None:
    view = memoryview(data)
    offset = 0
    while offset < len(view):
        offset += os.pwrite(fd, view[offset:], offset)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, SEALS)


class _FdFile(io.RawIOBase):
    """A file over a memory file's descriptor with its own position (pread and pwrite: the
    descriptor's offset is shared with the zygote and every child forked with it). It keeps a
    digest of what it wrote while the writes are in order."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd, self.position, self.size = fd, 0, os.fstat(fd).st_size
        self.written: Any = hashlib.blake2b() if self.size == 0 else None

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.size}[whence]
        self.position = base + offset
        return self.position

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        count = os.preadv(self.fd, [view], self.position)
        self.position += count
        return count

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        if self.written is not None and self.position != self.size:
            self.written = None  # Written out of order: not verifiable, so not stored.
        done = 0
        while done < len(view):
            done += os.pwrite(self.fd, view[done:], self.position + done)
        if self.written is not None:
            self.written.update(view)
        self.position += done
        self.size = max(self.size, self.position)
        return done


def _digest(fd: int) -> bytes:
    digest, offset, size = hashlib.blake2b(), 0, os.fstat(fd).st_size
    buffer = bytearray(4 << 20)
    while offset < size:
        count = os.preadv(fd, [buffer], offset)
        if count <= 0:
            break
        digest.update(memoryview(buffer)[:count])
        offset += count
    return digest.digest()


def is_sealed(fd: int) -> bool:
    try:
        return fcntl.fcntl(fd, fcntl.F_GET_SEALS) & SEALS == SEALS
    except OSError:
        return False
