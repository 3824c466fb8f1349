"""Correct cuDNN conv + fused Triton epilogue for KernelBench level2/1_Conv2D_ReLU_BiasAdd.

The convolution itself runs in cuDNN via F.conv2d WITHOUT its bias (fp32;
the harness disables TF32); one Triton kernel then does the rest in place:
add the conv bias, apply ReLU, add the extra (C, 1, 1) bias parameter:
y = relu(conv(x) + b_conv) + bias. Program (n*C + c, j) handles BLOCK
spatial positions of one (image, channel) plane, so both per-channel biases
are scalars loaded once per program.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def relu_bias_kernel(y_ptr, conv_b_ptr, bias_ptr, C, HW, BLOCK: tl.constexpr):
    plane = tl.program_id(0).to(tl.int64)
    c = plane % C
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < HW
    ptrs = y_ptr + plane * HW + offs
    v = tl.load(ptrs, mask=mask, other=0.0) + tl.load(conv_b_ptr + c)
    v = tl.maximum(v, 0.0) + tl.load(bias_ptr + c)
    tl.store(ptrs, v, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        cv = self.conv
        y = F.conv2d(x, cv.weight, None, cv.stride, cv.padding, cv.dilation, cv.groups).contiguous()
        N, C, H, W = y.shape
        BLOCK = 1024
        grid = (N * C, triton.cdiv(H * W, BLOCK))
        relu_bias_kernel[grid](y, cv.bias, self.bias.reshape(-1), C, H * W, BLOCK=BLOCK, num_warps=4)
        return y
