"""Subtly WRONG cuDNN conv3d + Triton epilogue for KernelBench level2/90_Conv3d_LeakyReLU_Sum_Clamp_GELU: tanh GELU.

Same as ok.py, but the final GELU uses the tanh approximation
0.5*v*(1 + tanh(sqrt(2/pi)*(v + 0.044715 v^3))) instead of the exact erf
form that torch.nn.functional.gelu uses by default. The two differ by at
most ~1.5e-4 on [-1, 1], but here that is enough: outputs are bounded by
gelu(1) = 0.84, and every element clamped to -1 (there are many, since the
randn sum_tensor pushes whole channels below -1) is off by 1.5e-4 against a
tolerance of ~1.0e-4. (On level1/26_GELU_, whose inputs are uniform in
[0, 1), the same approximation stays inside the tolerance.)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def leaky_sum_clamp_gelu_kernel(y_ptr, conv_b_ptr, sum_ptr, C, S, BLOCK: tl.constexpr):
    plane = tl.program_id(0).to(tl.int64)
    c = plane % C
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < S
    ptrs = y_ptr + plane * S + offs
    v = tl.load(ptrs, mask=mask, other=0.0) + tl.load(conv_b_ptr + c)
    v = tl.where(v >= 0.0, v, v * 0.2)
    v = v + tl.load(sum_ptr + c)
    v = tl.minimum(tl.maximum(v, -1.0), 1.0)
    # BUG: tanh-approximate GELU; the reference uses the exact erf form.
    z = 0.7978845608028654 * (v + 0.044715 * v * v * v)
    e = tl.exp(-2.0 * tl.abs(z))
    t = (1.0 - e) / (1.0 + e)
    t = tl.where(z < 0.0, -t, t)
    tl.store(ptrs, 0.5 * v * (1.0 + t), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, sum_tensor_shape):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.sum_tensor = nn.Parameter(torch.randn(sum_tensor_shape))

    def forward(self, x):
        cv = self.conv
        y = F.conv3d(x, cv.weight, None, cv.stride, cv.padding, cv.dilation, cv.groups).contiguous()
        N, C = y.shape[0], y.shape[1]
        S = y[0, 0].numel()
        BLOCK = 1024
        grid = (N * C, triton.cdiv(S, BLOCK))
        leaky_sum_clamp_gelu_kernel[grid](y, cv.bias, self.sum_tensor.reshape(-1), C, S,
                                          BLOCK=BLOCK, num_warps=4)
        return y
