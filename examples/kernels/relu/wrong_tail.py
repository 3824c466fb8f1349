"""Incorrect: skips the last partial block, leaving those output elements unwritten. On the GPU
the harness poisons freed memory, so the unwritten elements read NaN instead of stale values."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.full_like(x, float("nan")) if x.device.type == "cpu" else torch.empty_like(x)
        n = x.numel()
        relu_kernel[(n // 1024,)](x, y, n, BLOCK=1024)  # Floor, not ceil: the tail is dropped.
        return y
