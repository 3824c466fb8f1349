"""The constant 1/N again, on max(softmax(x), dim=1), which is not a constant (it lies between 1/N
and 1): the non-degenerate twin of c02_constant_softmax_mean, and it fails.

task: softmax_max
expect: incorrect
reason: outside tolerance
class: 2
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fill_kernel(y_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros((BLOCK,), tl.float32) + value, mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        fill_kernel[(1,)](y, y.numel(), 1.0 / x.shape[1], BLOCK=triton.next_power_of_2(y.numel()))
        return y
