"""Subtly WRONG Triton sum reduction for KernelBench level1/47_Sum_reduction_over_a_dimension: tail columns skipped.

Same kernel as ok.py, but the grid over the inner (column) axis is sized
with floor division `inner // BLOCK_I` instead of triton.cdiv. The task's
inner size 4095 is not a multiple of 128, so the last 127 columns of every
output row are never written and keep whatever torch.empty returned. A
harness that only tests power-of-two shapes, or does not poison fresh
allocations, can miss this.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_dim_kernel(x_ptr, y_ptr, R, inner,
                   BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr):
    o = tl.program_id(0).to(tl.int64)
    j = tl.program_id(1)
    cols = j * BLOCK_I + tl.arange(0, BLOCK_I)
    col_mask = cols < inner
    rows = tl.arange(0, BLOCK_R)
    base = x_ptr + o * R * inner
    acc = tl.zeros([BLOCK_R, BLOCK_I], tl.float32)
    for r0 in range(0, R, BLOCK_R):
        r = r0 + rows
        ptrs = base + r.to(tl.int64)[:, None] * inner + cols[None, :]
        mask = (r < R)[:, None] & col_mask[None, :]
        acc += tl.load(ptrs, mask=mask, other=0.0)
    total = tl.sum(acc, axis=0)
    tl.store(y_ptr + o * inner + cols, total, mask=col_mask)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        d = self.dim % x.dim()
        shape = list(x.shape)
        R = shape[d]
        outer = 1
        for s in shape[:d]:
            outer *= s
        inner = 1
        for s in shape[d + 1:]:
            inner *= s
        out_shape = shape[:d] + [1] + shape[d + 1:]
        y = torch.empty(out_shape, device=x.device, dtype=x.dtype)
        BLOCK_R, BLOCK_I = 32, 128
        grid = (outer, max(1, inner // BLOCK_I))  # BUG: floor division drops the tail block
        sum_dim_kernel[grid](x, y, R, inner, BLOCK_R=BLOCK_R, BLOCK_I=BLOCK_I, num_warps=4)
        return y
