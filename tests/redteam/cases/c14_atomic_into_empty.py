"""Split-K style reduction with tl.atomic_add into an output made by torch.empty instead of
torch.zeros: the atomics add onto whatever the memory held. On the GPU the poisoned memory is
NaN, and NaN plus anything is NaN.

task: sum_reduce
expect: incorrect
reason: NaN/Inf
class: 14
device: gpu
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_mid_atomic_kernel(x_ptr, y_ptr, R, I, BLOCK: tl.constexpr):
    b = tl.program_id(0)
    chunk = tl.program_id(1)
    r = chunk * BLOCK + tl.arange(0, BLOCK)
    for i in range(0, I):
        v = tl.load(x_ptr + (b * R + r) * I + i, mask=r < R, other=0.0)
        tl.atomic_add(y_ptr + b * I + i, tl.sum(v, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        B, R, I = x.shape
        y = torch.empty((B, 1, I), device=x.device, dtype=x.dtype)  # Should be torch.zeros.
        sum_mid_atomic_kernel[(B, triton.cdiv(R, 64))](x, y, R, I, BLOCK=64)
        return y
