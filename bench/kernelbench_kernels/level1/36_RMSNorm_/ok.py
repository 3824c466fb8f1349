"""Correct Triton RMS normalization over dim 1 for KernelBench level1/36_RMSNorm_.

The input (B, C, *spatial) is viewed as (B, C, S). Program (b, j) loads a
(C, BLOCK_S) tile (all channels of BLOCK_S consecutive spatial positions,
coalesced along S), computes rms = sqrt(mean_c(x^2) + eps) per column in
fp32, and writes x / rms. One read and one write per element; 64-bit
offsets.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rmsnorm_dim1_kernel(x_ptr, y_ptr, C, S, eps,
                        BLOCK_C: tl.constexpr, BLOCK_S: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    j = tl.program_id(1)
    ch = tl.arange(0, BLOCK_C)
    sp = j * BLOCK_S + tl.arange(0, BLOCK_S)
    mask = (ch < C)[:, None] & (sp < S)[None, :]
    offs = b * C * S + ch.to(tl.int64)[:, None] * S + sp[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    ms = tl.sum(x * x, axis=0) / C
    rms = tl.sqrt_rn(ms + eps)
    tl.store(y_ptr + offs, x / rms[None, :], mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        B, C = x.shape[0], x.shape[1]
        S = x.numel() // (B * C)
        BLOCK_C = triton.next_power_of_2(C)
        BLOCK_S = max(16, min(256, 8192 // BLOCK_C))
        grid = (B, triton.cdiv(S, BLOCK_S))
        rmsnorm_dim1_kernel[grid](x, y, C, S, self.eps,
                                  BLOCK_C=BLOCK_C, BLOCK_S=BLOCK_S, num_warps=8)
        return y
