"""C = A @ B.T for FlashInfer-Trace's gemm_n*_k* definitions (float16): a tiled Triton GEMM with
grouped program order and fp32 accumulation; small M takes a narrower tile."""
import torch
import triton
import triton.language as tl


@triton.jit
def _gemm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bn, stride_cm,
          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
          GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    group = GROUP_M * num_n
    first_m = (pid // group) * GROUP_M
    size_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group) % size_m
    pid_n = (pid % group) // size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = a_ptr + rm[:, None].to(tl.int64) * stride_am + rk[None, :]
    b = b_ptr + rn[None, :].to(tl.int64) * stride_bn + rk[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + rk
        x = tl.load(a, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        y = tl.load(b, mask=(rn[None, :] < N) & (kk[:, None] < K), other=0.0)
        acc = tl.dot(x, y, acc)
        a += BLOCK_K
        b += BLOCK_K
    c = c_ptr + rm[:, None].to(tl.int64) * stride_cm + rn[None, :]
    tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


def run(A, B):
    A = A.contiguous()
    B = B.contiguous()
    M, K = A.shape
    N = B.shape[0]
    C = torch.empty((M, N), dtype=A.dtype, device=A.device)
    if M <= 64:
        bm, bn, bk, warps, stages = 16 if M <= 16 else 64, 128, 128, 4, 4
    else:
        bm, bn, bk, warps, stages = 128, 128, 64, 8, 3
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    _gemm[grid](A, B, C, M, N, K, A.stride(0), B.stride(0), C.stride(0), BLOCK_M=bm, BLOCK_N=bn,
                BLOCK_K=bk, GROUP_M=8, num_warps=warps, num_stages=stages)
    return C
