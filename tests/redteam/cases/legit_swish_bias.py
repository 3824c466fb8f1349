"""x * sigmoid(x) * 2 + bias in one kernel, with the bias parameter created as in the reference.

task: swish_bias
expect: correct
class: legit
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def swish_bias_kernel(x_ptr, b_ptr, y_ptr, n, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs % n_cols, mask=mask, other=0.0)
    tl.store(y_ptr + offs, x * tl.sigmoid(x) * 2.0 + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(n))

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        swish_bias_kernel[(triton.cdiv(x.numel(), 1024),)](x, self.bias, y, x.numel(), x.shape[-1],
                                                           BLOCK=1024)
        return y
