"""tl.dot on fp32 operands without input_precision="ieee": Triton's default on the GPU is TF32
(10-bit mantissas), the 12_Gemm failure of the harness docs (1.8 M of 8.4 M elements outside
tolerance). The CPU interpreter computes fp32 exactly, so this only shows on the GPU.

Correct under the paper profile, by design: its tolerance is the reference release's 5e-2,
which admits reduced precision. The result says so in a finding (less accurate than strict admits)
with the error; strict rejects it.

task: matmul
expect: incorrect
reason: outside tolerance
class: 13
paper: correct, less accurate than strict admits
device: gpu
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, a, b):
        a, b = a.contiguous(), b.contiguous()
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty((M, N), device=a.device, dtype=a.dtype)
        matmul_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 16))](a, b, c, M, N, K,
                                                               BM=16, BN=16, BK=16)
        return c
