"""Subtly WRONG cuBLAS GEMM + Triton epilogue for level2/53_Gemm_Scaling_Hardtanh_GELU: default hardtanh bounds.

Same as ok.py (torch.mm, then one in-place Triton kernel for the bias,
scaling, hardtanh and erf GELU), but the hardtanh clamps to nn.Hardtanh's
default [-1, 1] instead of the constructor's [hardtanh_min, hardtanh_max] =
[-2, 2]; the bounds are stored but never used. On the task's U[0,1) inputs
u = 0.5 * (x @ W^T + b) stays inside [-1, 1] (std about 0.17, max|u| about
0.89), so the first trial passes. Under standard normal inputs about 9000
of the 16.8M elements have |u| > 1, and under the heavy-tailed inputs about
3.4M do; there GELU(1) = 0.84 is far from GELU(u).
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
                                              -1.0, 1.0,  # BUG: should be hardtanh_min, hardtanh_max
                                              BLOCK_N=BLOCK_N, num_warps=4)
        return y
