"""Correct Triton exact (erf) GELU for KernelBench level1/26_GELU_.

torch.nn.functional.gelu defaults to the exact form
gelu(x) = 0.5 * x * (1 + erf(x / sqrt(2))), so the kernel evaluates exactly
that with tl.erf (libdevice erff) in fp32: flattened input, one program per
BLOCK-sized chunk, masked tail, 64-bit offsets.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_erf_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = 4096
        gelu_erf_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8)
        return y
