"""Correct cuBLAS GEMM + fused Triton epilogue for KernelBench level2/81_Gemm_Swish_Divide_Clamp_Tanh_Clamp.

The bias-free product x @ W^T is left to cuBLAS through torch.mm (fp32; the
harness disables TF32), and one Triton kernel then does everything else in
place on that buffer, in the task's order: add the nn.Linear bias (if the
module has one; `bias=False` is honoured), swish v * sigmoid(v), divide by
2, clamp to [-1, 1], tanh, clamp to [-1, 1]. The first clamp is not
redundant: it caps tanh's input at 1, so outputs stop at tanh(1) = 0.76.
tanh is built from exp as sign(u) * (1 - e) / (1 + e) with e = exp(-2|u|),
which has no cancellation near 0 and no overflow.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_swish_div_clamp_tanh_kernel(y_ptr, b_ptr, N, stride_ym, HAS_BIAS: tl.constexpr,
                                     BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    ptrs = y_ptr + row * stride_ym + cols
    v = tl.load(ptrs, mask=mask, other=0.0)
    if HAS_BIAS:
        v += tl.load(b_ptr + cols, mask=mask, other=0.0)
    v = v / (1.0 + tl.exp(-v))  # swish
    u = v / 2.0
    u = tl.minimum(tl.maximum(u, -1.0), 1.0)
    e = tl.exp(-2.0 * tl.abs(u))
    t = (1.0 - e) / (1.0 + e)
    t = tl.where(u < 0.0, -t, t)
    t = tl.minimum(tl.maximum(t, -1.0), 1.0)
    tl.store(ptrs, t, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=bias)

    def forward(self, x):
        y = torch.mm(x, self.gemm.weight.t())  # cuBLAS GEMM; the rest is Triton
        M, N = y.shape
        b = self.gemm.bias
        has_bias = b is not None
        BLOCK_N = 1024
        grid = (M, triton.cdiv(N, BLOCK_N))
        bias_swish_div_clamp_tanh_kernel[grid](y, b if has_bias else y, N, y.stride(0),
                                               HAS_BIAS=has_bias, BLOCK_N=BLOCK_N, num_warps=4)
        return y
