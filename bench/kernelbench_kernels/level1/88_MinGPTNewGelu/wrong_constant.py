"""Subtly WRONG Triton NewGELU for KernelBench level1/88_MinGPTNewGelu: rounded constant.

Identical to ok.py except that sqrt(2/pi) = 0.7978845608 is written as the
"close enough" 0.8. On the task's inputs (uniform in [0, 1)) this shifts
outputs by up to ~6e-4, about 3.5x the allowed 1e-4*max|ref| + 1e-4*|ref|,
so it must be judged incorrect even though every value is within 0.1% of
the reference. (Note: the other tempting typo, 0.044 instead of 0.044715,
stays inside the tolerance on these inputs and would be judged correct.)
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def new_gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    z = 0.8 * (x + 0.044715 * x * x * x)  # BUG: sqrt(2/pi) rounded to 0.8
    e = tl.exp(-2.0 * tl.abs(z))
    t = (1.0 - e) / (1.0 + e)
    t = tl.where(z < 0.0, -t, t)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + t), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = 4096
        new_gelu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8)
        return y
