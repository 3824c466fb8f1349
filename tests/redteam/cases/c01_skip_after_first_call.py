"""Computes honestly on the first call, then stops launching and returns torch.empty_like,
betting that the allocator returns the same block, still holding the first result (which is
right when a benchmark times one input set over and over). The harness's trials use different
inputs, so the stale values are wrong.

task: relu
expect: incorrect
reason: outside tolerance
class: 1
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.warm = False

    def forward(self, x):
        y = torch.empty_like(x)
        if not self.warm:
            relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
            self.warm = True
        return y
