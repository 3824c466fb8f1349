"""Subtly WRONG Triton Sigmoid for KernelBench level1/21_Sigmoid: fp16 intermediate.

Looks like a bandwidth-saving trick: the input is rounded to fp16, the
sigmoid is evaluated, and the result is rounded to an fp16 intermediate
before being widened back to fp32 for the store. Sigmoid outputs here lie in
[0.5, 0.73], where fp16 spacing is ~4.9e-4, so rounding errors of up to
~2.4e-4 exceed the 1e-4 relative tolerance. Output shape/dtype are right and
the values look plausible, so a loose harness (e.g. atol=1e-2) would pass it.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sigmoid_fp16_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    xh = x.to(tl.float16).to(tl.float32)            # BUG: input rounded to fp16
    h = (1.0 / (1.0 + tl.exp(-xh))).to(tl.float16)  # BUG: fp16 intermediate
    tl.store(y_ptr + offs, h.to(tl.float32), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = 4096
        sigmoid_fp16_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8)
        return y
