"""Row log-softmax: x - max - log(sum(exp(x - max))), one program per row.

task: logsoftmax
expect: correct
class: legit
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def logsoftmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    shifted = x - tl.max(x, axis=0)
    lse = tl.log(tl.sum(tl.exp(shifted), axis=0))
    tl.store(y_ptr + row * n_cols + cols, shifted - lse, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        logsoftmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        return y
