"""Computes GELU in fp16 inside the kernel (loads cast to float16, erf and products in half
precision, result cast back): half the register traffic and faster math, about 1e-3 relative
error, which the fp32 tolerance (1e-4 of the output's scale) does not admit.

Correct under the paper profile, by design: its tolerance is the reference release's 5e-2,
which admits reduced precision. The result says so in a finding (less accurate than strict admits)
with the error; strict rejects it.

task: gelu
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
def gelu_fp16_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float16)
    half = x * 0.5
    inner = (x * 0.70703125).to(tl.float32)
    e = tl.math.erf(inner).to(tl.float16)
    y = half * (e + 1.0)
    tl.store(y_ptr + offs, y.to(tl.float32), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        gelu_fp16_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
