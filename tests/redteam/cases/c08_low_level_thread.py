"""The persistent launcher of c08_persistent_worker_dunder_import started with the low-level
_thread.start_new_thread (module name computed) instead of threading.Thread: such threads are not
in threading.enumerate(), which is what the harness's before/after comparison reads, so the live
worker goes unnoticed. The OS still counts it (/proc/self/task; the worker records
threads_started from it, but nothing decides on that fact yet).

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

_thread = __import__("_thr" + "ead")


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


_jobs = queue.Queue()
_started = []


def _loop():
    while True:
        x, y, done = _jobs.get()
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        done.put(True)


class ModelNew(nn.Module):
    def forward(self, x):
        if not _started:
            _thread.start_new_thread(_loop, ())
            _started.append(True)
        y = torch.empty_like(x)
        done = queue.Queue()
        _jobs.put((x, y, done))
        done.get()
        return y
