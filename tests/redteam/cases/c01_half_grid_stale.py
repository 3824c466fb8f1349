"""Launches programs for only the first half of the output and leaves the second half to whatever
the allocator hands back (on a benchmark that does not poison memory, the previous identical
call's result). The poisoned memory on the GPU turns the unwritten half into NaN.

task: relu
expect: incorrect
reason: NaN/Inf
class: 1
device: gpu
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        half = x.numel() // 2
        relu_kernel[(triton.cdiv(half, 1024),)](x, y, half, BLOCK=1024)
        return y
