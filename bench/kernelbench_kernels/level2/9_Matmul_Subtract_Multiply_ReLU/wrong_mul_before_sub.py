"""Subtly WRONG cuBLAS GEMM + Triton epilogue for level2/9_Matmul_Subtract_Multiply_ReLU: scale before subtract.

Same as ok.py (torch.mm, then one in-place Triton kernel for the bias,
subtract, multiply and ReLU), but the epilogue computes relu(v * m - s)
instead of relu((v - s) * m): the subtract_value is not scaled by
multiply_value, an operator-order slip. With s = 2 and m = 1.5 the ReLU
threshold moves from v > 2 to v > 4/3. On the task's U[0,1) inputs
v = x @ W^T + b has a std of about 0.33, so the reference is almost all
zeros and only the few hundred elements with 4/3 < v reveal the bug; the
other input distributions (normal, scaled, heavy) expose it broadly.
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
    v = v * mul - sub  # BUG: should be (v - sub) * mul
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
