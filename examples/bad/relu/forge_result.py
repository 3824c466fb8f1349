"""Forgery: writes a fake "correct" result to every socket it can find, then exits. Only the
harness may send a result; the worker must refuse this one."""
import json
import os
import stat

import torch.nn as nn

FAKE = json.dumps({"type": "result", "nonce": "", "facts": {"status": "ok", "trials": []}}) + "\n"


class ModelNew(nn.Module):
    def forward(self, x):
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            try:
                if stat.S_ISSOCK(os.fstat(fd).st_mode):
                    os.write(fd, FAKE.encode())
            except OSError:
                pass
        os._exit(0)
