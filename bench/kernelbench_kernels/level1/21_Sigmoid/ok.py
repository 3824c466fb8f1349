"""Correct CUDA C++ (load_inline) Sigmoid for KernelBench level1/21_Sigmoid.

A grid-stride CUDA kernel computes y = 1 / (1 + expf(-x)) in fp32 with
accurate expf (no fast-math). When the pointers are 16-byte aligned it
processes float4 vectors and finishes the remaining (n % 4) elements with a
scalar loop; otherwise it uses the scalar loop for everything. 64-bit
indices, launched on PyTorch's current CUDA stream.
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

__device__ __forceinline__ float sigmoid_f(float v) { return 1.0f / (1.0f + expf(-v)); }

__global__ void sigmoid_kernel(const float* __restrict__ x, float* __restrict__ y,
                               int64_t n, bool vec) {
    int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t start = 0;
    if (vec) {
        int64_t n4 = n / 4;
        const float4* x4 = reinterpret_cast<const float4*>(x);
        float4* y4 = reinterpret_cast<float4*>(y);
        for (int64_t i = tid; i < n4; i += stride) {
            float4 v = x4[i];
            v.x = sigmoid_f(v.x); v.y = sigmoid_f(v.y);
            v.z = sigmoid_f(v.z); v.w = sigmoid_f(v.w);
            y4[i] = v;
        }
        start = n4 * 4;
    }
    for (int64_t i = start + tid; i < n; i += stride) y[i] = sigmoid_f(x[i]);
}

torch::Tensor sigmoid_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    int64_t n = xc.numel();
    if (n == 0) return y;
    bool vec = (reinterpret_cast<uintptr_t>(xc.data_ptr<float>()) % 16 == 0) &&
               (reinterpret_cast<uintptr_t>(y.data_ptr<float>()) % 16 == 0);
    const int threads = 256;
    int64_t work = vec ? (n / 4 + 1) : n;
    int64_t blocks = (work + threads - 1) / threads;
    int sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
    if (blocks > (int64_t)sms * 32) blocks = (int64_t)sms * 32;
    sigmoid_kernel<<<(unsigned)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        xc.data_ptr<float>(), y.data_ptr<float>(), n, vec);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

cpp_src = "torch::Tensor sigmoid_forward(torch::Tensor x);"

_ext = load_inline(
    name="kb_l1_21_sigmoid_cuda",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["sigmoid_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.sigmoid_forward(x)
