"""Subtly WRONG Triton RMSNorm for KernelBench level1/36_RMSNorm_: normalizes over the wrong axis.

An "LLM-style" RMSNorm: it treats the tensor as rows of its LAST dimension
and normalizes each row, instead of reducing over dim 1 (the 64 feature
channels) as the reference does. Shapes, dtype and magnitudes all look
right (for uniform inputs every RMS is ~0.577 either way), but per-element
values differ by a few percent, far outside the tolerance. Only a check of
actual values against the reference catches it.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rmsnorm_lastdim_kernel(x_ptr, y_ptr, W, eps, BLOCK_W: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_W)
    mask = cols < W
    x = tl.load(x_ptr + row * W + cols, mask=mask, other=0.0)
    ms = tl.sum(x * x, axis=0) / W  # BUG: mean over the last dim, not over dim 1
    rms = tl.sqrt_rn(ms + eps)
    tl.store(y_ptr + row * W + cols, x / rms, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        W = x.shape[-1]
        rows = x.numel() // W
        rmsnorm_lastdim_kernel[(rows,)](x, y, W, self.eps,
                                        BLOCK_W=triton.next_power_of_2(W), num_warps=4)
        return y
