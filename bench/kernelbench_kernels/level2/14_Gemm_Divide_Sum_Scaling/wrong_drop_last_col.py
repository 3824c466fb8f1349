"""Subtly WRONG cuBLAS GEMM + Triton row reduction for level2/14_Gemm_Divide_Sum_Scaling: last column dropped.

Same as ok.py (torch.mm, then one Triton program per row that sums the row
and scales it by scaling_factor / 2), but the chunk mask is
`cols < N - 1`, an off-by-one that leaves the last of the hidden_size
values out of every row's sum. Shape and magnitude look right. On the
task's inputs the outputs have a std of about 1800 and max|ref| is about
5500, so the tolerance is about 0.55 plus 1e-4 * |ref|; the missing term,
0.75 times one GEMM value (std about 52), is about 39 on average and out of
tolerance in over 99% of rows.
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
        acc += tl.load(y_ptr + row * stride_ym + cols, mask=cols < N - 1, other=0.0)  # BUG: off by one
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
