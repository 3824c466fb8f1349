"""The in-place trick of c12_inplace_return_input disguised as a fresh tensor: the result is
written over the input, then returned as x.view(shape) (a new tensor object on the same
storage). The storage check sees through views.

task: relu
expect: rejected
reason: shares storage with an input
class: 12
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_inplace_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        relu_inplace_kernel[(triton.cdiv(x.numel(), 1024),)](x, x.numel(), BLOCK=1024)
        return x.view(x.shape[0], -1)
