"""Subtly WRONG cuDNN conv + Triton epilogue for KernelBench level2/1_Conv2D_ReLU_BiasAdd: bias added before ReLU.

Same structure as ok.py, but the extra bias parameter is added BEFORE the
ReLU, computing relu(conv(x) + b_conv + bias) instead of
relu(conv(x) + b_conv) + bias. The two agree wherever the pre-activation
and pre-activation + bias are both positive, so the output has the right
shape and looks plausible, but with the randn per-channel bias they differ
on a large fraction of elements.
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
    v = tl.maximum(v + tl.load(bias_ptr + c), 0.0)  # BUG: bias belongs after the ReLU
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
