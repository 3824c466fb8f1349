"""Correct cuDNN conv3d + fused Triton epilogue for KernelBench level2/90_Conv3d_LeakyReLU_Sum_Clamp_GELU.

The 3-D convolution runs in cuDNN via F.conv3d WITHOUT its bias (fp32; the
harness disables TF32). One Triton kernel then applies the whole tail in
place: v = conv + b_conv; v = leaky_relu(v, 0.2); v += sum_tensor[c];
v = clamp(v, -1, 1); y = exact erf GELU(v). Program (n*C + c, j) covers
BLOCK positions of one (image, channel) volume, so the per-channel
parameters are scalars.
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
    tl.store(ptrs, 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476)), mask=mask)


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
