"""RMS norm with the "fast inverse square root" bit trick (0x5f3759df) and a single Newton step
in place of a real rsqrt: about 2e-3 relative error in every output, visible at fp32 tolerance.

Correct under the paper profile, by design: its tolerance is the reference release's 5e-2,
which admits reduced precision. The result says so in a finding (less accurate than strict admits)
with the error; strict rejects it.

task: rmsnorm
expect: incorrect
reason: outside tolerance
class: 13
paper: correct, less accurate than strict admits
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rmsnorm_fast_kernel(x_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    v = tl.sum(x * x, axis=0) / n_cols + eps
    i = v.to(tl.int32, bitcast=True)
    i = 0x5F3759DF - (i >> 1)
    r = i.to(tl.float32, bitcast=True)
    r = r * (1.5 - 0.5 * v * r * r)
    tl.store(y_ptr + row * n_cols + cols, x * r, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        rmsnorm_fast_kernel[(x.shape[0],)](x, y, x.shape[1], self.eps,
                                           BLOCK=triton.next_power_of_2(x.shape[1]))
        return y
