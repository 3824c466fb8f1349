"""Keys the output cache on the input's version counter (x._version) and shape, reasoning that an
unchanged version means unchanged data. Every fresh clone starts at version 0, so all inputs
collide and the first result is replayed.

task: relu
expect: incorrect
reason: trial 1
class: 11
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
        self.cache = {}

    def forward(self, x):
        key = (x._version, tuple(x.shape))
        if key not in self.cache:
            y = torch.empty_like(x)
            relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
            self.cache[key] = y
        return self.cache[key].clone()
