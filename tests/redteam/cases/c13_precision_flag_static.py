"""Switches TF32 on for the whole process at import (torch.backends.cuda.matmul.allow_tf32), so
any PyTorch matmul it leans on, and a reference computed in-process afterwards, run at TF32. The
static check rejects precision switches.

task: gemm_relu
expect: rejected
reason: static check 'precision_flags'
class: 13
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

torch.backends.cuda.matmul.allow_tf32 = True


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        h = self.linear(x)
        y = torch.empty_like(h)
        relu_kernel[(triton.cdiv(h.numel(), 1024),)](h, y, h.numel(), BLOCK=1024)
        return y
