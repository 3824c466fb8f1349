"""Forgery, as forge_result.py, but finding its sockets by trying every descriptor rather than
through /proc, and importing `socket` under a name spelt in bytes, so the static checks do not
reject it before it runs: only the harness may send a result, and the worker must refuse this
one (the sandbox leaves the harness's own channel in the process; the nonce guards it)."""
import json
import os

socket = __import__(bytes([115, 111, 99, 107, 101, 116]).decode())

import torch.nn as nn

FAKE = json.dumps({"type": "result", "nonce": "", "facts": {"status": "ok", "trials": []}}) + "\n"


class ModelNew(nn.Module):
    def forward(self, x):
        for fd in range(3, 256):
            try:
                sock = socket.socket(fileno=fd)
            except OSError:
                continue
            try:
                sock.send(FAKE.encode())
            except OSError:
                pass
            finally:
                sock.detach()
        os._exit(0)
