"""An honest kernel on a degenerate task: it computes each softmax row and averages it, and is
correct; the task is flagged degenerate anyway, because the constant 1/N would pass too.

task: softmax_mean
expect: correct
class: legit
device: any
degenerate: yes
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_mean_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    p = e / tl.sum(e, axis=0)
    tl.store(y_ptr + row, tl.sum(tl.where(mask, p, 0.0), axis=0) / n_cols)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        softmax_mean_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        return y
