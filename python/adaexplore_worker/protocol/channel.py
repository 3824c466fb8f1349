"""The worker protocol's transport: JSON lines over a file descriptor, one object per line,
UTF-8, '\\n'-terminated. The C++ side talks to the zygote on a dedicated socket (fd 3 by
default), never on stdout, which candidate code shares. The zygote talks to each candidate child
over a socket pair of its own. The schema of the messages is job.py and facts.py.
"""

from __future__ import annotations

import errno
import json
import os
from typing import Any

from .decode import ProtocolError
from .facts import Status

MAX_LINE_BYTES = 64 << 20
# Bound at import, before any candidate code runs in this process: a candidate that replaces
# json.dumps or os.write cannot touch what the harness sends.
_dumps = json.dumps
_write = os.write


class ChannelClosed(Exception):
    """The peer closed its end."""


class Channel:
    """A non-blocking-friendly line channel over one fd (the fd is not owned)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = b""
        self._pending: list[dict[str, Any] | str] = []

    def send(self, message: dict[str, Any]) -> None:
        # Raw UTF-8, not \u escapes: a string from a candidate may hold a lone surrogate,
        # which escaped would be JSON the C++ side must refuse; here it becomes "?".
        data = (_dumps(message, separators=(",", ":"), allow_nan=False, default=_default,
                       ensure_ascii=False) + "\n").encode("utf-8", "replace")
        view = memoryview(data)
        while view:
            try:
                n = _write(self.fd, view)
            except InterruptedError:
                continue
            except BlockingIOError:
                import select
                select.select([], [self.fd], [], 1.0)
                continue
            view = view[n:]

    def read_available(self) -> list[dict[str, Any] | str]:
        """Reads what the fd has now. Returns parsed objects, or the raw line where a line is not a
        JSON object (the caller decides what a malformed line means). Raises ChannelClosed at EOF
        once no complete line is left."""
        try:
            chunk = os.read(self.fd, 1 << 20)
        except BlockingIOError:
            chunk = None
        except OSError as e:
            if e.errno in (errno.ECONNRESET, errno.EPIPE):
                chunk = b""
            else:
                raise
        if chunk == b"":
            lines = self._take_pending() + self._split()
            if lines:
                return lines
            raise ChannelClosed()
        if chunk:
            self._buffer += chunk
        if len(self._buffer) > MAX_LINE_BYTES and b"\n" not in self._buffer:
            self._buffer = b""
            return self._take_pending() + ["<line over the size limit>"]
        return self._take_pending() + self._split()

    def _take_pending(self) -> list[dict[str, Any] | str]:
        pending, self._pending = self._pending, []
        return pending

    def read_blocking(self) -> dict[str, Any]:
        """Waits for the next JSON object; lines that are not objects are skipped."""
        while True:
            while self._pending:
                item = self._pending.pop(0)
                if isinstance(item, dict):
                    return item
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                raise ChannelClosed()
            self._buffer += chunk
            self._pending.extend(self._split())

    def _split(self) -> list[dict[str, Any] | str]:
        out: list[dict[str, Any] | str] = []
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            text = line.decode("utf-8", errors="replace")
            try:
                obj = json.loads(text)
            except ValueError:
                out.append(text)
                continue
            out.append(obj if isinstance(obj, dict) else text)
        return out


def _default(value: Any) -> Any:
    """JSON for the odd values facts can hold: non-finite floats become strings."""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def finite_or_none(x: float | None) -> float | None:
    """JSON has no NaN or Infinity: facts use None for NaN and a large sentinel string never."""
    if x is None:
        return None
    if x != x:  # NaN
        return None
    if x in (float("inf"), float("-inf")):
        return None
    return float(x)


def sanitize(value: Any) -> Any:
    """Makes facts JSON-safe: non-finite floats become None, unknown objects strings."""
    if isinstance(value, Status):
        return value.value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): sanitize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [sanitize(v) for v in value]
    return str(value)


def read_until_closed(fd: int, timeout_s: float) -> bytes:
    """Everything written to `fd` until its writers close it or `timeout_s` passes (a probe's
    answer); closes `fd`."""
    import select
    import time

    data = b""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            data += chunk
    os.close(fd)
    return data
