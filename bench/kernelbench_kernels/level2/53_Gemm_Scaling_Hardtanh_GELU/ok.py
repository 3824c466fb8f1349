"""Correct cuBLAS GEMM + fused Triton epilogue for KernelBench level2/53_Gemm_Scaling_Hardtanh_GELU.

The bias-free product x @ W^T is left to cuBLAS through torch.mm (fp32; the
harness disables TF32), and one Triton kernel then does everything else in
place on that buffer, in the task's order: add the nn.Linear bias, multiply
by scaling_factor, hardtanh to [hardtanh_min, hardtanh_max] (the
constructor's bounds, here [-2, 2], not nn.Hardtanh's default [-1, 1]) and
the exact erf GELU 0.5*u*(1 + erf(u/sqrt(2))). The 2-D grid gives each
program one row segment, so the bias is loaded once per program.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_scale_hardtanh_gelu_kernel(y_ptr, b_ptr, N, stride_ym, scale, lo, hi,
                                    BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    ptrs = y_ptr + row * stride_ym + cols
    v = tl.load(ptrs, mask=mask, other=0.0) + tl.load(b_ptr + cols, mask=mask, other=0.0)
    u = tl.minimum(tl.maximum(v * scale, lo), hi)
    tl.store(ptrs, 0.5 * u * (1.0 + tl.erf(u * 0.7071067811865476)), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scaling_factor, hardtanh_min, hardtanh_max):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor
        self.hardtanh_min = hardtanh_min
        self.hardtanh_max = hardtanh_max

    def forward(self, x):
        y = torch.mm(x, self.gemm.weight.t())  # cuBLAS GEMM; the rest is Triton
        M, N = y.shape
        BLOCK_N = 1024
        grid = (M, triton.cdiv(N, BLOCK_N))
        bias_scale_hardtanh_gelu_kernel[grid](y, self.gemm.bias, N, y.stride(0),
                                              float(self.scaling_factor),
                                              float(self.hardtanh_min), float(self.hardtanh_max),
                                              BLOCK_N=BLOCK_N, num_warps=4)
        return y
