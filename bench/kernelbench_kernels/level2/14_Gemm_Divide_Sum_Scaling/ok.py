"""Correct cuBLAS GEMM + Triton row reduction for KernelBench level2/14_Gemm_Divide_Sum_Scaling.

The product x @ W^T (W is the task's own randn (hidden, input) parameter,
there is no bias) is left to cuBLAS through torch.mm (fp32; the harness
disables TF32). One Triton kernel then does the rest: each program owns one
row, sums its hidden_size values in fp32 over BLOCK_N-wide chunks (masked
tail), and writes sum * (1/2) * scaling_factor into the (batch, 1) output.
Dividing by 2 before or after the sum is the same in floating point (a
power-of-two scale), so this matches the task's divide, sum, scale order.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_sum_scale_kernel(y_ptr, out_ptr, N, stride_ym, stride_om, scale, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK_N], tl.float32)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        acc += tl.load(y_ptr + row * stride_ym + cols, mask=cols < N, other=0.0)
    tl.store(out_ptr + row * stride_om, tl.sum(acc, axis=0) * scale)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, scaling_factor):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(hidden_size, input_size))
        self.scaling_factor = scaling_factor

    def forward(self, x):
        y = torch.mm(x, self.weight.t())  # cuBLAS GEMM; the rest is Triton
        M, N = y.shape
        out = torch.empty((M, 1), device=x.device, dtype=torch.float32)
        row_sum_scale_kernel[(M,)](y, out, N, y.stride(0), out.stride(0),
                                   0.5 * float(self.scaling_factor), BLOCK_N=1024, num_warps=4)
        return out
