"""Submits the kernel to a ThreadPoolExecutor and returns the output buffer at once, letting the
work finish after the timer stops (DeepReinforce's thread injection). The static check rejects
thread modules.

task: relu
expect: rejected
reason: static check 'threads'
class: 8
device: any
"""
from concurrent.futures import ThreadPoolExecutor

import torch
import torch.nn as nn
import triton
import triton.language as tl

_pool = ThreadPoolExecutor(max_workers=1)


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


def _launch(x, y):
    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        _pool.submit(_launch, x, y)
        return y
