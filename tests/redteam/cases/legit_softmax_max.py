"""The largest softmax probability of each row, fused: max(softmax(x)) = 1 / sum(exp(x - max)).

task: softmax_max
expect: correct
class: legit
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_max_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    s = tl.sum(tl.exp(x - tl.max(x, axis=0)), axis=0)
    tl.store(y_ptr + row, 1.0 / s)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        softmax_max_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        return y
