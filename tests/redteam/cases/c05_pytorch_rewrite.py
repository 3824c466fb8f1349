"""x * sigmoid(x) * 2 + bias rewritten in PyTorch alone, with a Triton kernel defined beside it
and never launched: no kernel of its own runs. The launch hooks see that on the CPU as on the
GPU (legit_pytorch_rewrite_unrestricted is the same rewrite where the run allows it).

task: swish_bias
expect: rejected
reason: PyTorch
class: 5
device: any
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def swish_bias_kernel(x_ptr, b_ptr, y_ptr, n, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs % cols, mask=mask)
    tl.store(y_ptr + offs, x * tl.sigmoid(x) * 2.0 + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(n))

    def forward(self, x):
        return torch.addcmul(self.bias, F.silu(x), torch.full_like(self.bias, 2.0))
