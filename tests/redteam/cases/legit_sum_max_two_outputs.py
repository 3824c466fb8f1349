"""Two outputs from one pass: each program reduces one row to its sum and its maximum and writes
both into two preallocated vectors, returned as a tuple in the reference's order.

task: sum_max
expect: correct
class: legit
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_max_kernel(x_ptr, s_ptr, m_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    tl.store(s_ptr + row, tl.sum(x, axis=0))
    tl.store(m_ptr + row, tl.max(tl.where(mask, x, -float("inf")), axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        s = torch.empty(rows, device=x.device, dtype=x.dtype)
        m = torch.empty(rows, device=x.device, dtype=x.dtype)
        sum_max_kernel[(rows,)](x, s, m, cols, BLOCK=triton.next_power_of_2(cols))
        return s, m
