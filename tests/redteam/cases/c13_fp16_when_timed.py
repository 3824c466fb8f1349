"""Exact fp32 (ieee dot) for the first six calls, the correctness trials and the determinism
rerun; from the seventh call on, when only timing is left, the operands go to tl.dot in float16
(tensor cores on real hardware). The error, about 1e-3 of the output's scale, fails the fp32
tolerance (c13_fp16_dot_matmul) but fits inside the 10x tolerance the timed outputs are
re-checked at, which is meant to catch replays, not rounding. Needs timed outputs re-checked at
the full tolerance (at least a sample of them).

Under paper its 5e-2 tolerance accepts the fp16 outputs; the timed outputs are caught being far
less accurate than the checked ones (timed_accuracy).

task: matmul
expect: rejected
reason: timed runs gave outputs that do not match
class: 13
paper: rejected, computes less accurately when timed
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, HALF: tl.constexpr,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        if HALF:
            acc += tl.dot(a.to(tl.float16), b.to(tl.float16))
        else:
            acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, a, b):
        self.calls += 1
        a, b = a.contiguous(), b.contiguous()
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty((M, N), device=a.device, dtype=a.dtype)
        matmul_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 16))](a, b, c, M, N, K,
                                                               HALF=self.calls > 6,
                                                               BM=16, BN=16, BK=16)
        return c
