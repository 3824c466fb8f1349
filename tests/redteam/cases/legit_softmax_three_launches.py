"""Softmax as a pipeline of three kernel launches: per-row max, per-row sum of exp(x - max) into
a scratch vector, then the normalised store. Every scratch buffer is fully written before it is
read.

task: softmax
expect: correct
class: legit
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(x_ptr, m_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(m_ptr + row, tl.max(x, axis=0))


@triton.jit
def row_sumexp_kernel(x_ptr, m_ptr, s_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(s_ptr + row, tl.sum(tl.exp(x - tl.load(m_ptr + row)), axis=0))


@triton.jit
def normalise_kernel(x_ptr, m_ptr, s_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    y = tl.exp(x - tl.load(m_ptr + row)) / tl.load(s_ptr + row)
    tl.store(y_ptr + row * n_cols + cols, y, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        m = torch.empty(rows, device=x.device, dtype=torch.float32)
        s = torch.empty(rows, device=x.device, dtype=torch.float32)
        y = torch.empty_like(x)
        full = triton.next_power_of_2(cols)
        row_max_kernel[(rows,)](x, m, cols, BLOCK=full)
        row_sumexp_kernel[(rows,)](x, m, s, cols, BLOCK=full)
        normalise_kernel[(rows, triton.cdiv(cols, 128))](x, m, s, y, cols, BLOCK=128)
        return y
