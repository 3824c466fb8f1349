"""Subtly WRONG cuBLAS GEMM + Triton epilogue for level2/81_Gemm_Swish_Divide_Clamp_Tanh_Clamp: inner clamp dropped.

Same as ok.py (torch.mm, then one in-place Triton kernel for the bias,
swish, divide, clamp, tanh and clamp), but the clamp before tanh is left
out, on the plausible but false reasoning that tanh already maps into
[-1, 1]. The clamp caps tanh's input at 1, so without it outputs can exceed
tanh(1) = 0.7616. That needs swish(v) / 2 > 1, i.e. v > about 2.24. On the
task's U[0,1) inputs v = x @ W^T + b has a std of about 0.33, so no element
gets there and the first trial passes; under the normal and heavy-tailed
input distributions some elements do, by far more than the tolerance.
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
    # BUG: the clamp of u to [-1, 1] before tanh is missing
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
