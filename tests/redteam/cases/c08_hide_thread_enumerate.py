"""The persistent launcher thread of c08_persistent_worker_dunder_import, hidden from the
thread check: threading.enumerate (threading reached by a computed __import__) is wrapped to
leave out the candidate's own thread, so the harness's before/after comparison of live threads
finds nothing new. The threading module is outside the identity guard's snapshot.

task: relu
expect: rejected
reason: runtime check 'threads'
class: 8
device: any
"""
import queue

import torch
import torch.nn as nn
import triton
import triton.language as tl

_threading = __import__("thr" + "eading")
_real_enumerate = _threading.enumerate


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class _Launcher:
    def __init__(self):
        self.jobs = queue.Queue()
        self.thread = None

    def _loop(self):
        while True:
            x, y, done = self.jobs.get()
            relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
            done.set()

    def submit(self, x, y):
        if self.thread is None:
            self.thread = _threading.Thread(target=self._loop, daemon=True, name="launcher")
            self.thread.start()
        done = _threading.Event()
        self.jobs.put((x, y, done))
        return done


_launcher = _Launcher()
_threading.enumerate = lambda: [t for t in _real_enumerate() if t is not _launcher.thread]


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        _launcher.submit(x, y).wait()
        return y
