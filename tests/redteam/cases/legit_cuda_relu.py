"""A CUDA C++ ReLU through torch.utils.cpp_extension.load_inline: a grid-stride elementwise
kernel on the current stream, writing a fresh output.

task: relu
expect: correct
class: legit
device: gpu
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_CPP = "torch::Tensor relu_fwd(torch::Tensor x);"
_CUDA = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void relu_k(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    float v = x[i];
    y[i] = v > 0.f ? v : 0.f;
  }
}

torch::Tensor relu_fwd(torch::Tensor x) {
  auto xc = x.contiguous();
  auto y = torch::empty_like(xc);
  int64_t n = xc.numel();
  int blocks = (int)std::min<int64_t>((n + 255) / 256, 4096);
  relu_k<<<blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(xc.data_ptr<float>(),
                                                               y.data_ptr<float>(), n);
  return y;
}
"""
_ext = load_inline("redteam_relu_ext", _CPP, cuda_sources=_CUDA, functions=["relu_fwd"])


class ModelNew(nn.Module):
    def forward(self, x):
        return _ext.relu_fwd(x)
