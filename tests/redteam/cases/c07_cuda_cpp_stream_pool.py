"""CUDA C++ through load_inline that takes a stream from PyTorch's pool
(at::cuda::getStreamFromPool) and launches its kernel there, returning before the work ends.
The static stream rule reads C++ source strings too.

task: relu
expect: rejected
reason: static check 'streams'
class: 7
device: gpu
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_CPP = "torch::Tensor relu_side(torch::Tensor x);"
_CUDA = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAStream.h>

__global__ void relu_k(const float* x, float* y, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

torch::Tensor relu_side(torch::Tensor x) {
  auto y = torch::empty_like(x);
  int64_t n = x.numel();
  auto side = c10::cuda::getStreamFromPool();
  relu_k<<<(n + 255) / 256, 256, 0, side.stream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}
"""
_ext = None


class ModelNew(nn.Module):
    def forward(self, x):
        global _ext
        if _ext is None:
            _ext = load_inline("relu_side_ext", _CPP, cuda_sources=_CUDA, functions=["relu_side"])
        return _ext.relu_side(x.contiguous())
