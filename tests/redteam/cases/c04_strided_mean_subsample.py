"""A mean over 2048 columns estimated from every 8th column (x[:, ::8]): an eighth of the reads,
and on large random inputs the estimate is close to the true mean, close enough for a loose
tolerance. Not for the scaled fp32 criterion.

task: mean_reduce
expect: incorrect
reason: outside tolerance
class: 4
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def strided_mean_kernel(x_ptr, y_ptr, n_cols, STRIDE: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    idx = tl.arange(0, BLOCK)
    cols = idx * STRIDE
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    count = (n_cols + STRIDE - 1) // STRIDE
    tl.store(y_ptr + row, tl.sum(x, axis=0) / count)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty(rows, device=x.device, dtype=x.dtype)
        stride = 8
        strided_mean_kernel[(rows,)](x, y, cols, STRIDE=stride,
                                     BLOCK=triton.next_power_of_2(triton.cdiv(cols, stride)))
        return y
