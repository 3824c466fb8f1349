"""The reference's op, fetched by a computed name from torch.nn.functional so that no reader (or
static rule) sees "gelu" called, wrapped in a copy kernel so that a Triton kernel does run.
Caught by the kernel trace when PyTorch compute is forbidden (an aten GELU kernel ran); by
default it is allowed, and the copy kernel counts as the candidate's own.

task: gelu
expect: rejected
reason: kernel trace
flags: --pytorch-compute forbidden
class: 5
device: gpu
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

_op = getattr(torch.nn.functional, "".join(["ge", "lu"]))


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        h = _op(x)
        y = torch.empty_like(h)
        copy_kernel[(triton.cdiv(h.numel(), 1024),)](h, y, h.numel(), BLOCK=1024)
        return y
