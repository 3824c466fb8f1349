"""An in-place PyTorch op on the input (x.relu_()) followed by a Triton copy into a fresh output:
the output is a new tensor, but the caller's input has been changed. Inputs are checked to be
bit-identical after the call.

task: relu
expect: rejected
reason: modified its input
class: 12
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x.relu_()
        y = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
