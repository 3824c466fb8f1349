"""c07_side_stream_getattr on a GEMM of tens of microseconds (issue 37: it scored correct 3.22x
under strict): the side stream's kernel runs on past the timed stream's end event by less than
the call's launch latency, so wall time against event time does not give it away. The trace's
marker and the tail after the end event do.

task: gemm_mid
expect: rejected
reason: escaped the timed stream
class: 7
device: gpu
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

_cuda = getattr(torch, "cu" + "da")
_Side = getattr(_cuda, "Str" + "eam")
_enter = getattr(_cuda, "str" + "eam")


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
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.side = None

    def forward(self, a, b):
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty((M, N), device=a.device, dtype=a.dtype)
        if self.side is None:
            self.side = _Side()  # Pool streams are created non-blocking.
        self.side.wait_stream(_cuda.current_stream())  # Inputs are ready; the output is not.
        with _enter(self.side):
            matmul_kernel[(triton.cdiv(M, 64), triton.cdiv(N, 64))](a, b, c, M, N, K,
                                                                    BM=64, BN=64, BK=32)
        return c
