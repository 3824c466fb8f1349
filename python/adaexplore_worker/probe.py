"""A question answered in a throwaway forked child: the device's facts (the zygote must never
initialise CUDA itself), the sandbox's self-test (it must not enter the sandbox itself). The
child writes one JSON object on a pipe and exits; the parent reads it, kills and reaps the child.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from .protocol.channel import read_until_closed


def in_child(answer: Callable[[int], dict[str, Any]], timeout_s: float,
             what: str) -> dict[str, Any]:
    """`answer(fd)` runs in the child (`fd`: the pipe's writing end, for a child that must know
    it). An exception there, or no answer within `timeout_s`, is {"error": ...} naming `what`."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        code = 0
        try:
            facts = answer(write_end)
        except BaseException as e:  # noqa: BLE001 - reported, never raised into the zygote.
            facts = {"error": f"{what} failed: {type(e).__name__}: {e}"}
            code = 1
        os.write(write_end, json.dumps(facts).encode())
        os._exit(code)
    os.close(write_end)
    data = read_until_closed(read_end, timeout_s)
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    try:
        return json.loads(data.decode())
    except ValueError:
        return {"error": f"{what} did not answer"}
