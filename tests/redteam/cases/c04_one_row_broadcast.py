"""The task's inputs repeat one row over the batch, so the "kernel" computes 2*tanh(x)+1 for row 0
only and stores it into every row (a materialised broadcast, no zero stride). Right on the
task's inputs, and on them rescaled; wrong as soon as rows differ (strict's normal trial).

Under the paper profile, whose own trials use the task's inputs, its integrity trial on
normal inputs catches it.

task: repeated_rows
expect: incorrect
reason: (normal inputs)
class: 4
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def first_row_bcast_kernel(x_ptr, y_ptr, R, C, BLOCK: tl.constexpr):
    c = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = c < C
    x = tl.load(x_ptr + c, mask=mask, other=0.0)  # Row 0 only.
    e = tl.exp(-2.0 * tl.abs(x))
    t = (1.0 - e) / (1.0 + e)
    y = tl.where(x < 0, -t, t) * 2.0 + 1.0
    for r in range(0, R):
        tl.store(y_ptr + r * C + c, y, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        y = torch.empty_like(x)
        first_row_bcast_kernel[(triton.cdiv(C, 256),)](x, y, R, C, BLOCK=256)
        return y
