"""Subtly WRONG cuBLAS GEMM + Triton epilogue for KernelBench level2/86_Matmul_Divide_GELU: last row dropped.

Same as ok.py, but the epilogue grid covers only M - 1 rows (an off-by-one
in the row count), so the last row of the output keeps the raw GEMM values
x @ W^T without bias, division or GELU. Every other row is exactly right,
so checks that sample a few elements or compare only the first rows pass.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_div_gelu_kernel(y_ptr, b_ptr, N, stride_ym, inv_div, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    ptrs = y_ptr + row * stride_ym + cols
    v = (tl.load(ptrs, mask=mask, other=0.0) + tl.load(b_ptr + cols, mask=mask, other=0.0)) * inv_div
    tl.store(ptrs, 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476)), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, input_size, output_size, divisor):
        super().__init__()
        self.linear = nn.Linear(input_size, output_size)
        self.divisor = divisor

    def forward(self, x):
        y = torch.mm(x, self.linear.weight.t())  # cuBLAS GEMM; the rest is Triton
        M, N = y.shape
        BLOCK_N = 1024
        grid = (M - 1, triton.cdiv(N, BLOCK_N))  # BUG: last row never processed
        bias_div_gelu_kernel[grid](y, self.linear.bias, N, y.stride(0), 1.0 / float(self.divisor),
                                   BLOCK_N=BLOCK_N, num_warps=4)
        return y
