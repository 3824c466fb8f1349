"""Correct fused Triton GEMM + bias + sigmoid + row sum for KernelBench level2/56_Matmul_Sigmoid_Sum.

Two Triton kernels, no atomics, so the result is deterministic:
1. Tiled fp32 GEMM with tl.dot(..., input_precision="ieee") (true fp32,
   not TF32), W (hidden, input) read in place through strides. The epilogue
   adds the nn.Linear bias, applies sigmoid 1 / (1 + exp(-v)), zeroes the
   columns past hidden_size and sums the tile's row segment, writing one
   partial sum per (column tile, row) into a small fp32 buffer.
2. One program per block of rows adds up that row's partial sums in a fixed
   order and writes the (batch, 1) output.
The (batch, hidden) activation is never written to memory.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gemm_bias_sigmoid_rowsum_kernel(x_ptr, w_ptr, b_ptr, part_ptr, M, N, K,
                                    stride_xm, stride_xk, stride_wn, stride_wk, stride_pn,
                                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                    BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    group = GROUP_M * num_n
    first_m = (pid // group) * GROUP_M
    size_m = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group) % size_m
    pid_n = (pid % group) // size_m

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + rm.to(tl.int64)[:, None] * stride_xm + rk[None, :] * stride_xk
    w_ptrs = w_ptr + rk[:, None] * stride_wk + rn.to(tl.int64)[None, :] * stride_wn
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(x_ptrs, mask=(rm[:, None] < M) & (rk[None, :] + k0 < K), other=0.0)
        b = tl.load(w_ptrs, mask=(rk[:, None] + k0 < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk
    bias = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    v = acc + bias[None, :]
    s = 1.0 / (1.0 + tl.exp(-v))
    s = tl.where(rn[None, :] < N, s, 0.0)
    tl.store(part_ptr + pid_n * stride_pn + rm, tl.sum(s, axis=1), mask=rm < M)


@triton.jit
def sum_partials_kernel(part_ptr, out_ptr, M, NUM_PARTS, stride_pn, stride_om,
                        BLOCK_M: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M], tl.float32)
    for p in range(0, NUM_PARTS):
        acc += tl.load(part_ptr + p * stride_pn + rm, mask=rm < M, other=0.0)
    tl.store(out_ptr + rm * stride_om, acc, mask=rm < M)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.linear = nn.Linear(input_size, hidden_size)

    def forward(self, x):
        w, b = self.linear.weight, self.linear.bias
        M, K = x.shape
        N = w.shape[0]
        BM, BN, BK = 128, 128, 16
        num_n = triton.cdiv(N, BN)
        part = torch.empty((num_n, M), device=x.device, dtype=torch.float32)
        out = torch.empty((M, 1), device=x.device, dtype=torch.float32)
        grid = (triton.cdiv(M, BM) * num_n,)
        gemm_bias_sigmoid_rowsum_kernel[grid](x, w, b, part, M, N, K,
                                              x.stride(0), x.stride(1), w.stride(0), w.stride(1),
                                              part.stride(0),
                                              BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8,
                                              num_warps=8, num_stages=3)
        RB = 128
        sum_partials_kernel[(triton.cdiv(M, RB),)](part, out, M, num_n, part.stride(0),
                                                   out.stride(0), BLOCK_M=RB, num_warps=4)
        return out
