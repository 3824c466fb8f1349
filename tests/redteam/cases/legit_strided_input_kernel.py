"""sigmoid(x) * x reading the input through its strides (no copy): a 2-D kernel that takes both
input strides, so the transposed input is handled in place, and writes a contiguous output.

task: transposed_input
expect: correct
class: legit
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def silu_2d_kernel(x_ptr, y_ptr, R, C, sxr, sxc, BR: tl.constexpr, BC: tl.constexpr):
    r = tl.program_id(0) * BR + tl.arange(0, BR)
    c = tl.program_id(1) * BC + tl.arange(0, BC)
    mask = (r[:, None] < R) & (c[None, :] < C)
    x = tl.load(x_ptr + r[:, None] * sxr + c[None, :] * sxc, mask=mask, other=0.0)
    tl.store(y_ptr + r[:, None] * C + c[None, :], x * tl.sigmoid(x), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        R, C = x.shape
        y = torch.empty((R, C), device=x.device, dtype=x.dtype)
        silu_2d_kernel[(triton.cdiv(R, 16), triton.cdiv(C, 64))](
            x, y, R, C, x.stride(0), x.stride(1), BR=16, BC=64)
        return y
