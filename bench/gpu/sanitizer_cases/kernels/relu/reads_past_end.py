"""Correct values, out-of-bounds reads: the last block loads a whole block past the input's end
(its load mask is n + BLOCK) and stores only inside it. Under PyTorch's caching allocator the
extra reads land in the same segment and every trial passes; memcheck flags them."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n + BLOCK, other=0.0)
    tl.store(y_ptr + offsets, tl.maximum(x, 0.0), mask=offsets < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
