"""Slows the reference's torch module class, not its own call: at import (in a module the
kernel writes and imports) it replaces torch.nn.Linear.forward with one that adds matmuls. The
reference computes through nn.Linear; the candidate only holds its weights there and computes
with its own Triton kernel, so only the reference's time grows.

task: gemm_relu
expect: rejected
reason: torch.nn.modules.linear.Linear.forward
class: 10
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_relu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        x = tl.load(x_ptr + rm[:, None] * K + rk[None, :],
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * K + rk[:, None],
                    mask=(rn[None, :] < N) & (rk[:, None] < K), other=0.0)
        acc += tl.dot(x, w, input_precision="ieee")
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    acc = tl.maximum(acc, 0.0)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)  # Same init order as Model.

    def forward(self, x):
        x = x.contiguous()
        M, K = x.shape
        N = self.linear.weight.shape[0]
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        grid = (triton.cdiv(M, 16), triton.cdiv(N, 16))
        linear_relu_kernel[grid](x, self.linear.weight, self.linear.bias, y, M, N, K,
                                 BM=16, BN=16, BK=16)
        return y

# The payload goes through a file the kernel writes and imports: the static rules never see it.
import os as _os, sys as _sys
with open(_os.path.join(_os.getcwd(), "payload_c10_slow_reference_linear.py"), "w") as _f:
    _f.write("import torch\n\n_forward = torch.nn.Linear.forward\n\n\ndef slow(self, x):\n    out = _forward(self, x)\n    pad = torch.ones(256, 256, device=out.device)\n    for _ in range(20):\n        pad = pad @ pad / 256\n    return out\n\n\ntorch.nn.Linear.forward = slow  # The reference's Linear; the candidate's own kernel skips it.\n")
_sys.path.insert(0, _os.getcwd())
__import__("payload_c10_slow_reference_linear")
