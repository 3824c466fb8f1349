"""The Sakana L1 #15 shape: the "kernel" allocates its output with torch.empty_like and launches
nothing that writes it, hoping PyTorch's caching allocator hands back the block that just held
the reference's output. On the GPU the harness poisons freed memory before every candidate run,
so the unwritten output reads NaN.

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
        y = torch.empty_like(x)
        n = x.numel() * 0  # "Already computed": an empty grid, nothing is launched.
        if n:
            relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
