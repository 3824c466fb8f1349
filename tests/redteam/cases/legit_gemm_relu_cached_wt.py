"""Linear + ReLU with a legitimate cache: the transposed, contiguous copy of the weight is made
once and reused while the weight is unchanged (keyed on its storage and version counter). The
cache holds parameters, never outputs, so every call computes from its inputs.

task: gemm_relu
expect: correct
class: legit
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_relu_kernel(x_ptr, wt_ptr, b_ptr, y_ptr, M, N, K,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        x = tl.load(x_ptr + rm[:, None] * K + rk[None, :],
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(wt_ptr + rk[:, None] * N + rn[None, :],
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(x, w, input_precision="ieee")
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], tl.maximum(acc, 0.0),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self._wt = None
        self._wt_key = None

    def _weight_t(self):
        w = self.linear.weight
        key = (w.data_ptr(), w._version, w.device, w.dtype)
        if self._wt_key != key:
            self._wt = w.detach().t().contiguous()
            self._wt_key = key
        return self._wt

    def forward(self, x):
        x = x.contiguous()
        M, K = x.shape
        N = self.linear.weight.shape[0]
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        linear_relu_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 16))](
            x, self._weight_t(), self.linear.bias, y, M, N, K, BM=16, BN=16, BK=16)
        return y
