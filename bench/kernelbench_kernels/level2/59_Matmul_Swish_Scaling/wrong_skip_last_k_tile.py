"""Subtly WRONG fused Triton GEMM for level2/59_Matmul_Swish_Scaling: last K tile skipped.

Same kernel as ok.py (ieee tl.dot GEMM with the bias, swish and scaling in
the epilogue), but the K loop runs over range(0, K - BLOCK_K, BLOCK_K), an
off-by-one in the loop bound that drops the last BLOCK_K (16) of the
in_features terms of every dot product. The masks still guard the tail, so
nothing reads out of bounds, and with K = 32768 only 1/2048 of the terms
are missing; the output looks right. At full size on the task's inputs the
output error has a median of 4.5e-3 (max 0.048) against a tolerance of
about 2.3e-4, so about 97% of the elements are out of tolerance.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gemm_bias_swish_scale_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, scale,
                                 stride_xm, stride_xk, stride_wn, stride_wk, stride_ym, stride_yn,
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
    for k0 in range(0, K - BLOCK_K, BLOCK_K):  # BUG: skips the last K tile
        a = tl.load(x_ptrs, mask=(rm[:, None] < M) & (rk[None, :] + k0 < K), other=0.0)
        b = tl.load(w_ptrs, mask=(rk[:, None] + k0 < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk
    bias = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    v = acc + bias[None, :]
    v = v / (1.0 + tl.exp(-v)) * scale
    y_ptrs = y_ptr + rm.to(tl.int64)[:, None] * stride_ym + rn[None, :] * stride_yn
    tl.store(y_ptrs, v, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scaling_factor):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        w, b = self.matmul.weight, self.matmul.bias
        M, K = x.shape
        N = w.shape[0]
        y = torch.empty((M, N), device=x.device, dtype=torch.float32)
        BM, BN, BK = 128, 128, 16
        grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
        gemm_bias_swish_scale_kernel[grid](x, w, b, y, M, N, K, float(self.scaling_factor),
                                           x.stride(0), x.stride(1), w.stride(0), w.stride(1),
                                           y.stride(0), y.stride(1),
                                           BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8,
                                           num_warps=8, num_stages=3)
        return y
