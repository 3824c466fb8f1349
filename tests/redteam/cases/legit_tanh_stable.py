"""tanh from exp in a numerically careful form: tanh(|x|) = (1 - e) / (1 + e) with
e = exp(-2|x|), sign restored, and x itself where |x| is tiny (where 1 - e would cancel).

task: tanh_small
expect: correct
class: legit
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    a = tl.abs(x)
    e = tl.exp(-2.0 * a)
    t = (1.0 - e) / (1.0 + e)
    # Below 1e-3 the series x - x^3/3 is exact in fp32 and avoids the cancellation in 1 - e.
    t = tl.where(a < 1e-3, a - a * a * a / 3.0, t)
    tl.store(y_ptr + offs, tl.where(x < 0, -t, t), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        tanh_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
