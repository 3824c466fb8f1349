"""Correct CUDA C++ (load_inline) matrix-vector product for KernelBench level1/4_Matrix_vector_multiplication_.

C = A @ B with A (M, K) and B (K, 1). One 256-thread block per row of A:
each thread strides over the row with float4 loads (scalar fallback when K
is not a multiple of 4 or pointers are misaligned), keeps an fp32 partial
sum, and the block reduces the partials with warp shuffles plus a small
shared-memory stage. The problem is purely memory-bound (8.6 GB of A), so
the goal is streaming A once at full bandwidth; all offsets are 64-bit.
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

__global__ void matvec_kernel(const float* __restrict__ A, const float* __restrict__ x,
                              float* __restrict__ y, int64_t K, bool vec) {
    const int64_t row = blockIdx.x;
    const float* a = A + row * K;
    float sum = 0.0f;
    if (vec) {
        const float4* a4 = reinterpret_cast<const float4*>(a);
        const float4* x4 = reinterpret_cast<const float4*>(x);
        int64_t K4 = K / 4;
        #pragma unroll 4
        for (int64_t i = threadIdx.x; i < K4; i += blockDim.x) {
            float4 av = a4[i];
            float4 xv = __ldg(&x4[i]);
            sum += av.x * xv.x + av.y * xv.y + av.z * xv.z + av.w * xv.w;
        }
    } else {
        for (int64_t i = threadIdx.x; i < K; i += blockDim.x) sum += a[i] * __ldg(&x[i]);
    }
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
    __shared__ float warp_sums[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        int nwarps = blockDim.x >> 5;
        sum = lane < nwarps ? warp_sums[lane] : 0.0f;
        for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
        if (lane == 0) y[row] = sum;
    }
}

torch::Tensor matvec_forward(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "inputs must be CUDA tensors");
    TORCH_CHECK(A.scalar_type() == torch::kFloat32 && B.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(A.dim() == 2 && B.dim() == 2 && B.size(1) == 1 && B.size(0) == A.size(1), "bad shapes");
    auto Ac = A.contiguous();
    auto Bc = B.contiguous();
    int64_t M = Ac.size(0), K = Ac.size(1);
    auto y = torch::empty({M, 1}, Ac.options());
    if (M == 0) return y;
    bool vec = (K % 4 == 0) &&
               (reinterpret_cast<uintptr_t>(Ac.data_ptr<float>()) % 16 == 0) &&
               (reinterpret_cast<uintptr_t>(Bc.data_ptr<float>()) % 16 == 0);
    matvec_kernel<<<(unsigned)M, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        Ac.data_ptr<float>(), Bc.data_ptr<float>(), y.data_ptr<float>(), K, vec);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

cpp_src = "torch::Tensor matvec_forward(torch::Tensor A, torch::Tensor B);"

_ext = load_inline(
    name="kb_l1_4_matvec_cuda",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["matvec_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return _ext.matvec_forward(A, B)
