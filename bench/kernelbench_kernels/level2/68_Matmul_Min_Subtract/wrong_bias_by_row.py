"""Subtly WRONG cuBLAS GEMM + Triton epilogue for level2/68_Matmul_Min_Subtract: bias on the wrong axis.

Same as ok.py (torch.mm, then one in-place Triton kernel for the bias, the
min with the `constant` parameter and the subtraction), but the bias is
indexed by the row instead of the column: element (i, j) gets b[i] instead
of b[j]. batch_size (128) is below out_features (16384), so every load is in
bounds and nothing crashes; the bias values are the right size, just in the
wrong places. The nn.Linear bias is U(-1/128, 1/128), far above the
tolerance of about 1e-4 * max|ref|.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_min_sub_kernel(y_ptr, b_ptr, c_ptr, N, stride_ym, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    c = tl.load(c_ptr)
    ptrs = y_ptr + row * stride_ym + cols
    v = tl.load(ptrs, mask=mask, other=0.0) + tl.load(b_ptr + row)  # BUG: should be b[cols]
    tl.store(ptrs, tl.minimum(v, c) - c, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, constant):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.constant = nn.Parameter(torch.tensor(constant))

    def forward(self, x):
        y = torch.mm(x, self.linear.weight.t())  # cuBLAS GEMM; the rest is Triton
        M, N = y.shape
        BLOCK_N = 1024
        grid = (M, triton.cdiv(N, BLOCK_N))
        bias_min_sub_kernel[grid](y, self.linear.bias, self.constant.reshape(1), N, y.stride(0),
                                  BLOCK_N=BLOCK_N, num_warps=4)
        return y
