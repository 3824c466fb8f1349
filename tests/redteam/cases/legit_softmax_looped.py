"""Row softmax in three passes over column blocks smaller than the row (running max, then the
sum of exponentials, then the normalised store), so rows longer than one block work.

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
def softmax_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row * stride
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    for c in range(0, n_cols, BLOCK):
        cols = c + tl.arange(0, BLOCK)
        m = tl.maximum(m, tl.load(base + cols, mask=cols < n_cols, other=-float("inf")))
    row_max = tl.max(m, axis=0)
    s = tl.zeros((BLOCK,), tl.float32)
    for c in range(0, n_cols, BLOCK):
        cols = c + tl.arange(0, BLOCK)
        x = tl.load(base + cols, mask=cols < n_cols, other=-float("inf"))
        s += tl.exp(x - row_max)
    total = tl.sum(s, axis=0)
    for c in range(0, n_cols, BLOCK):
        cols = c + tl.arange(0, BLOCK)
        x = tl.load(base + cols, mask=cols < n_cols, other=-float("inf"))
        tl.store(y_ptr + row * stride + cols, tl.exp(x - row_max) / total, mask=cols < n_cols)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        softmax_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0), BLOCK=128)
        return y
