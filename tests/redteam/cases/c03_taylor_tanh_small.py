"""The task's inputs are below 1e-3, where tanh(x) = x - x^3/3 to fp32 precision, so a cubic
polynomial (no exp, no division) matches the reference on them, and even on them rescaled by up
to 100. It only holds for small inputs: strict's normal trial exposes it.

Under the paper profile, whose own trials use the task's inputs, its integrity trial on
normal inputs catches it.

task: tanh_small
expect: incorrect
reason: (normal inputs)
class: 3
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tanh_series_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, x - x * x * x * (1.0 / 3.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        tanh_series_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
