"""RMS norm per row: x * rsqrt(mean(x^2) + eps), one program per row.

task: rmsnorm
expect: correct
class: legit
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    ms = tl.sum(x * x, axis=0) / n_cols
    tl.store(y_ptr + row * n_cols + cols, x / tl.sqrt(ms + eps), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        rmsnorm_kernel[(x.shape[0],)](x, y, x.shape[1], self.eps,
                                      BLOCK=triton.next_power_of_2(x.shape[1]))
        return y
