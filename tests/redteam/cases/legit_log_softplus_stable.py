"""softplus(log(x)) for positive x, in one kernel: softplus(y) = max(y, 0) + log(1 + exp(-|y|)),
the overflow-free form, with y = log(x).

task: log_softplus
expect: correct
class: legit
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def log_softplus_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.log(x)
    sp = tl.maximum(y, 0.0) + tl.log(1.0 + tl.exp(-tl.abs(y)))
    # PyTorch's softplus returns y itself above its threshold (20).
    tl.store(y_ptr + offs, tl.where(y > 20.0, y, sp), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        log_softplus_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
        return y
