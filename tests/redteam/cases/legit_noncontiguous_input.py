"""sigmoid(x) * x on an input that arrives transposed: the kernel assumes a flat contiguous
layout, so forward calls .contiguous() first (a copy for the transposed input, free otherwise)
and returns a fresh contiguous output of the reference's shape.

task: transposed_input
expect: correct
class: legit
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def silu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, x / (1.0 + tl.exp(-x)), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        xc = x.contiguous()
        y = torch.empty(xc.shape, device=xc.device, dtype=xc.dtype)
        silu_kernel[(triton.cdiv(xc.numel(), 1024),)](xc, y, xc.numel(), BLOCK=1024)
        return y
