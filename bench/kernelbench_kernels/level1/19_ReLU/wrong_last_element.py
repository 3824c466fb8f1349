"""Subtly WRONG Triton ReLU for KernelBench level1/19_ReLU: last element never written.

Same kernel as ok.py, but the mask is `offs < n - 1` (an off-by-one), so the
very last element of the output is never stored. The output comes from
torch.empty_like, so that element holds whatever the memory held before. A
harness that does not poison freshly allocated memory may see a stale
correct value there (e.g. the reference's freed output reused by the caching
allocator) and wrongly call this correct.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n - 1  # BUG: skips the last element
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.where(x > 0.0, x, 0.0)
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = 4096
        relu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8)
        return y
