"""Correct Triton row softmax for KernelBench level1/23_Softmax (dim=1 of a 2-D input).

One program per row. Rows are far too long for registers (393216 columns),
so the kernel makes two passes: pass 1 streams the row in BLOCK-wide chunks
keeping a per-lane running max and a running sum of exp(x - max) that is
rescaled whenever the max grows (online softmax); the lanes are then merged
into the row max M and denominator S. Pass 2 re-reads the row and writes
exp(x - M) / S. All math is fp32.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_row
    y_row = y_ptr + row * stride_row
    cols = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], -3.0e38, tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=float("-inf"))
        m_new = tl.maximum(m, x)
        s = s * tl.exp(m - m_new) + tl.exp(x - m_new)
        m = m_new
    row_max = tl.max(m, axis=0)
    denom = tl.sum(s * tl.exp(m - row_max), axis=0)
    inv = 1.0 / denom
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=float("-inf"))
        tl.store(y_row + start + cols, tl.exp(x - row_max) * inv, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n_rows, n_cols = x.shape
        BLOCK = min(4096, triton.next_power_of_2(n_cols))
        softmax_kernel[(n_rows,)](x, y, n_cols, x.stride(0), BLOCK=BLOCK, num_warps=8)
        return y
