"""Sum over the middle dimension of a 3-D tensor (keepdim): one program per (outer, inner) pair
looping over the reduced dimension in blocks, through the input's strides.

task: sum_reduce
expect: correct
class: legit
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_mid_kernel(x_ptr, y_ptr, R, I, BLOCK: tl.constexpr):
    b = tl.program_id(0)
    i = tl.program_id(1)
    acc = tl.zeros((BLOCK,), tl.float32)
    for r0 in range(0, R, BLOCK):
        r = r0 + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + (b * R + r) * I + i, mask=r < R, other=0.0)
    tl.store(y_ptr + b * I + i, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        B, R, I = x.shape
        y = torch.empty((B, 1, I), device=x.device, dtype=x.dtype)
        sum_mid_kernel[(B, I)](x, y, R, I, BLOCK=64)
        return y
