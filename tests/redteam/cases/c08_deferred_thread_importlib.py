"""The real thread injection, with threading imported through importlib by a computed name: forward
starts a thread that writes the output later and returns the (zeroed) buffer at once. The harness
sees the thread still running when forward returns, and that rejects the candidate before its
(unfinished, so wrong) values are judged.

task: relu
expect: rejected
reason: runtime check 'threads'
class: 8
device: any
"""
import importlib

import torch
import torch.nn as nn
import triton
import triton.language as tl

_threading = importlib.import_module("".join(["thr", "ead", "ing"]))
_time = importlib.import_module("time")


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


def _later(x, y):
    _time.sleep(0.5)  # Long after the timer has stopped.
    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.zeros_like(x)
        _threading.Thread(target=_later, args=(x, y), daemon=True).start()
        return y
