"""Correct cuDNN conv + fused CUDA C++ (load_inline) epilogue for KernelBench level2/57_Conv2d_ReLU_HardSwish.

The convolution (with its bias) runs in cuDNN via F.conv2d (fp32; the
harness disables TF32). A hand-written CUDA kernel then applies the tail in
place, in one pass: v = relu(v); y = v * clamp((v + 3) / 6, 0, 1), using
float4 accesses when the buffer is 16-byte aligned and a scalar loop for the
remainder. Grid-stride loop, 64-bit indices, current PyTorch stream.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

__device__ __forceinline__ float relu_hswish(float v) {
    v = fmaxf(v, 0.0f);
    float g = fminf(fmaxf((v + 3.0f) / 6.0f, 0.0f), 1.0f);
    return v * g;
}

__global__ void relu_hswish_kernel(float* __restrict__ y, int64_t n, bool vec) {
    int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t start = 0;
    if (vec) {
        float4* y4 = reinterpret_cast<float4*>(y);
        int64_t n4 = n / 4;
        for (int64_t i = tid; i < n4; i += stride) {
            float4 v = y4[i];
            v.x = relu_hswish(v.x); v.y = relu_hswish(v.y);
            v.z = relu_hswish(v.z); v.w = relu_hswish(v.w);
            y4[i] = v;
        }
        start = n4 * 4;
    }
    for (int64_t i = start + tid; i < n; i += stride) y[i] = relu_hswish(y[i]);
}

torch::Tensor relu_hswish_(torch::Tensor y) {
    TORCH_CHECK(y.is_cuda() && y.is_contiguous(), "y must be a contiguous CUDA tensor");
    TORCH_CHECK(y.scalar_type() == torch::kFloat32, "y must be float32");
    int64_t n = y.numel();
    if (n == 0) return y;
    bool vec = reinterpret_cast<uintptr_t>(y.data_ptr<float>()) % 16 == 0;
    const int threads = 256;
    int64_t work = vec ? (n / 4 + 1) : n;
    int64_t blocks = (work + threads - 1) / threads;
    int sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
    if (blocks > (int64_t)sms * 32) blocks = (int64_t)sms * 32;
    relu_hswish_kernel<<<(unsigned)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        y.data_ptr<float>(), n, vec);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

cpp_src = "torch::Tensor relu_hswish_(torch::Tensor y);"

_ext = load_inline(
    name="kb_l2_57_relu_hswish_cuda",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["relu_hswish_"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)

    def forward(self, x):
        cv = self.conv
        y = F.conv2d(x, cv.weight, cv.bias, cv.stride, cv.padding, cv.dilation, cv.groups).contiguous()
        return _ext.relu_hswish_(y)
