"""A CUDA C++ shared-memory tiled fp32 GEMM (16x16 tiles, zero-filled edges, plain fp32 FMAs, so
no TF32), for sizes that are not multiples of the tile.

task: matmul
expect: correct
class: legit
device: gpu
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_CPP = "torch::Tensor gemm_fwd(torch::Tensor a, torch::Tensor b);"
_CUDA = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

constexpr int T = 16;

__global__ void gemm_k(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  int r = blockIdx.y * T + threadIdx.y, c = blockIdx.x * T + threadIdx.x;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += T) {
    int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (r < M && ka < K) ? A[(int64_t)r * K + ka] : 0.f;
    Bs[threadIdx.y][threadIdx.x] = (kb < K && c < N) ? B[(int64_t)kb * N + c] : 0.f;
    __syncthreads();
    for (int k = 0; k < T; ++k) acc = fmaf(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
    __syncthreads();
  }
  if (r < M && c < N) C[(int64_t)r * N + c] = acc;
}

torch::Tensor gemm_fwd(torch::Tensor a, torch::Tensor b) {
  auto ac = a.contiguous(), bc = b.contiguous();
  int M = ac.size(0), K = ac.size(1), N = bc.size(1);
  auto c = torch::empty({M, N}, ac.options());
  dim3 grid((N + T - 1) / T, (M + T - 1) / T), block(T, T);
  gemm_k<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
      ac.data_ptr<float>(), bc.data_ptr<float>(), c.data_ptr<float>(), M, N, K);
  return c;
}
"""
_ext = load_inline("redteam_gemm_ext", _CPP, cuda_sources=_CUDA, functions=["gemm_fwd"])


class ModelNew(nn.Module):
    def forward(self, a, b):
        return _ext.gemm_fwd(a, b)
