"""Correct cuBLAS GEMM + fused Triton epilogue for KernelBench level2/9_Matmul_Subtract_Multiply_ReLU.

The bias-free product x @ W^T is left to cuBLAS through torch.mm (fp32; the
harness disables TF32), and one Triton kernel then does everything else in
place on that buffer: add the nn.Linear bias, subtract subtract_value,
multiply by multiply_value and apply ReLU, in the task's order,
relu((v + b - s) * m). The 2-D grid gives each program one row segment, so
the bias is loaded once per program.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_sub_mul_relu_kernel(y_ptr, b_ptr, N, stride_ym, sub, mul, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    ptrs = y_ptr + row * stride_ym + cols
    v = tl.load(ptrs, mask=mask, other=0.0) + tl.load(b_ptr + cols, mask=mask, other=0.0)
    v = (v - sub) * mul
    tl.store(ptrs, tl.maximum(v, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, subtract_value, multiply_value):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.subtract_value = subtract_value
        self.multiply_value = multiply_value

    def forward(self, x):
        y = torch.mm(x, self.linear.weight.t())  # cuBLAS GEMM; the rest is Triton
        M, N = y.shape
        BLOCK_N = 1024
        grid = (M, triton.cdiv(N, BLOCK_N))
        bias_sub_mul_relu_kernel[grid](y, self.linear.bias, N, y.stride(0),
                                       float(self.subtract_value), float(self.multiply_value),
                                       BLOCK_N=BLOCK_N, num_warps=4)
        return y
