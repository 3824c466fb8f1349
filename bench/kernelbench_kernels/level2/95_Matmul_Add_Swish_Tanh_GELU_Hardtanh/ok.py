"""Correct cuBLAS GEMM + fused Triton epilogue for KernelBench level2/95_Matmul_Add_Swish_Tanh_GELU_Hardtanh.

The bias-free product x @ W^T is left to cuBLAS through torch.mm (fp32; the
harness disables TF32), and one Triton kernel then does everything else in
place on that buffer, in the task's order: add the nn.Linear bias and the
randn add_value parameter, swish v * sigmoid(v), tanh, the exact erf GELU
0.5*t*(1 + erf(t/sqrt(2))), and hardtanh to [-1, 1]. tanh is built from exp
as sign(v) * (1 - e) / (1 + e) with e = exp(-2|v|). Parameters are created
in Model's order (nn.Linear, then add_value).
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
    g = 0.5 * t * (1.0 + tl.erf(t * 0.7071067811865476))
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
