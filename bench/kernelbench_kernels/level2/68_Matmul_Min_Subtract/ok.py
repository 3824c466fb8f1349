"""Correct cuBLAS GEMM + fused Triton epilogue for KernelBench level2/68_Matmul_Min_Subtract.

The bias-free product x @ W^T is left to cuBLAS through torch.mm (fp32; the
harness disables TF32), and one Triton kernel then does everything else in
place on that buffer: add the nn.Linear bias, take min(v, c) and subtract c,
where c is the model's `constant` parameter, read from its tensor on the
device (not a Python copy of its initial value). The 2-D grid gives each
program one row segment, so the bias is loaded once per program.
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
    v = tl.load(ptrs, mask=mask, other=0.0) + tl.load(b_ptr + cols, mask=mask, other=0.0)
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
