"""FAULT: CUDA C++ (load_inline) "ReLU" for KernelBench level1/19_ReLU that writes far out of bounds.

The kernel computes ReLU correctly but stores element i to
y[i + (1LL << 40)], i.e. 4 TiB past the output buffer, an address that is
never mapped on a GPU. Every thread faults, so the launch ends with
cudaErrorIllegalAddress ("an illegal memory access was encountered"). The
error is asynchronous: it surfaces at the harness's next synchronizing CUDA
call, and it is sticky, so the process's CUDA context is unusable afterwards
(the harness must run candidates in a disposable worker process).
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

__global__ void relu_oob_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i + (1LL << 40)] = v > 0.0f ? v : 0.0f;  // FAULT: 4 TiB past the buffer
    }
}

torch::Tensor relu_oob(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "float32 CUDA tensor expected");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    int64_t n = xc.numel();
    if (n == 0) return y;
    const int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    relu_oob_kernel<<<(unsigned)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        xc.data_ptr<float>(), y.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

cpp_src = "torch::Tensor relu_oob(torch::Tensor x);"

_ext = load_inline(
    name="kb_fault_illegal_memory_access",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["relu_oob"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.relu_oob(x)
