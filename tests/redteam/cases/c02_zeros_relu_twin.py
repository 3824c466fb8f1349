"""The zeros "kernel" of c02_zeros_min_clamp on plain ReLU, whose output is not zero: the
non-degenerate twin, and it fails.

task: relu
expect: incorrect
reason: outside tolerance
class: 2
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fill_kernel(y_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros((BLOCK,), tl.float32) + value, mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        fill_kernel[(triton.cdiv(x.numel(), 1024),)](y, x.numel(), 0.0, BLOCK=1024)
        return y
