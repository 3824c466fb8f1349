"""Correct Triton tanh-GELU ("NewGELU" from minGPT) for KernelBench level1/88_MinGPTNewGelu.

Computes 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) in fp32,
one program per BLOCK-sized chunk of the flattened input. tanh is built from
tl.exp as sign(z) * (1 - e^(-2|z|)) / (1 + e^(-2|z|)), which never overflows
and is accurate to ~1e-7 absolute (plenty for the 1e-4 relative tolerance;
it also runs under TRITON_INTERPRET, unlike libdevice.tanh).
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def new_gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    z = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    e = tl.exp(-2.0 * tl.abs(z))
    t = (1.0 - e) / (1.0 + e)
    t = tl.where(z < 0.0, -t, t)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + t), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = 4096
        new_gelu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8)
        return y
