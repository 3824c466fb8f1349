"""Exact GELU on the U[0,1) task: the same erf kernel, which (unlike the tanh approximation) holds
on every input distribution.

task: gelu_rand
expect: correct
class: legit
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476)), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        gelu_kernel[(triton.cdiv(x.numel(), 2048),)](x, y, x.numel(), BLOCK=2048)
        return y
