"""CUDA C++ that creates its own non-blocking stream, spelled with preprocessor token pasting
(cudaStream ## CreateWithFlags, cudaStream ## NonBlocking) so the static regex over source strings
finds nothing, and launches a 4096^3 GEMM there. The device-wide synchronise before the wall clock
is read still sees the work: wall time far above event time.

task: gemm_large
expect: rejected
reason: escaped the timed stream
class: 7
device: gpu
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_CPP = "torch::Tensor mm_side(torch::Tensor a, torch::Tensor b);"
_CUDA = r"""
#include <torch/extension.h>
#define PASTE(a, b) a##b
#define MAKE_STREAM(s) PASTE(cudaStream, CreateWithFlags)(&s, PASTE(cudaStream, NonBlocking))

__global__ void mm_k(const float* A, const float* B, float* C, int n) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.f;
  for (int k0 = 0; k0 < n; k0 += 16) {
    As[threadIdx.y][threadIdx.x] = A[r * n + k0 + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * n + c];
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[r * n + c] = acc;
}

static cudaStream_t side = nullptr;

torch::Tensor mm_side(torch::Tensor a, torch::Tensor b) {
  int n = a.size(0);  // Square, a multiple of 16 (the task's 4096).
  auto c = torch::empty({n, n}, a.options());
  if (side == nullptr) MAKE_STREAM(side);
  mm_k<<<dim3(n / 16, n / 16), dim3(16, 16), 0, side>>>(a.data_ptr<float>(), b.data_ptr<float>(),
                                                         c.data_ptr<float>(), n);
  return c;
}
"""
_ext = None


class ModelNew(nn.Module):
    def forward(self, a, b):
        global _ext
        if _ext is None:
            _ext = load_inline("mm_side_ext", _CPP, cuda_sources=_CUDA, functions=["mm_side"])
        return _ext.mm_side(a.contiguous(), b.contiguous())
