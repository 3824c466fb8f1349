"""Subtly WRONG cuBLAS GEMM + Triton epilogue for level2/95_Matmul_Add_Swish_Tanh_GELU_Hardtanh: "quick" GELU.

Same as ok.py (torch.mm, then one in-place Triton kernel for the adds,
swish, tanh, GELU and hardtanh), but the GELU is the sigmoid approximation
t * sigmoid(1.702 * t) instead of the exact erf form. On GELU's input range
here, tanh(swish(.)) in [-0.28, 1), it is off by up to 6.4e-3 (near
t = 0.76), against a tolerance below 2e-4. The tanh approximation would not
be caught on this task: it is off by at most 1.53e-4 there (at t = 1),
about 0.91 times the tolerance, so it is not used as the wrong variant.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_swish_tanh_gelu_hardtanh_kernel(y_ptr, b_ptr, a_ptr, N, stride_ym, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    ptrs = y_ptr + row * stride_ym + cols
    v = tl.load(ptrs, mask=mask, other=0.0) + tl.load(b_ptr + cols, mask=mask, other=0.0)
    v = v + tl.load(a_ptr + cols, mask=mask, other=0.0)
    v = v / (1.0 + tl.exp(-v))  # swish
    e = tl.exp(-2.0 * tl.abs(v))
    t = (1.0 - e) / (1.0 + e)
    t = tl.where(v < 0.0, -t, t)  # tanh
    g = t / (1.0 + tl.exp(-1.702 * t))  # BUG: sigmoid-approximate GELU, not erf
    tl.store(ptrs, tl.minimum(tl.maximum(g, -1.0), 1.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, add_value_shape):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.add_value = nn.Parameter(torch.randn(add_value_shape))

    def forward(self, x):
        y = torch.mm(x, self.matmul.weight.t())  # cuBLAS GEMM; the rest is Triton
        M, N = y.shape
        BLOCK_N = 1024
        grid = (M, triton.cdiv(N, BLOCK_N))
        add_swish_tanh_gelu_hardtanh_kernel[grid](y, self.matmul.bias, self.add_value.reshape(-1),
                                                  N, y.stride(0), BLOCK_N=BLOCK_N, num_warps=4)
        return y
