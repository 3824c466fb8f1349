"""Forgery, as forge_result.py, but finding its sockets by trying every descriptor rather than
through /proc, so the static checks do not reject it before it runs: only the harness may send
a result, and the worker must refuse this one."""
import json
import os
import socket

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
