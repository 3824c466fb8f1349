"""Correct on a GPU: a CUDA kernel built with torch.utils.cpp_extension.load_inline's
cuda_sources (KernelBench's native format). On the CPU it cannot be built or checked: the verdict
there is `error`, "needs a GPU"."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CUDA = r"""
#include <torch/extension.h>

__global__ void relu_kernel(const float* in, float* out, int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) {
    out[i] = in[i] > 0.0f ? in[i] : 0.0f;
  }
}

torch::Tensor relu_forward(torch::Tensor x) {
  auto input = x.contiguous();
  auto out = torch::empty_like(input);
  const int64_t n = input.numel();
  const int threads = 256;
  relu_kernel<<<(n + threads - 1) / threads, threads>>>(input.data_ptr<float>(),
                                                        out.data_ptr<float>(), n);
  return out;
}
"""

CPP = "torch::Tensor relu_forward(torch::Tensor x);"

relu_ext = load_inline(name="adaexplore_example_relu_cuda", cpp_sources=CPP, cuda_sources=CUDA,
                       functions=["relu_forward"], verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return relu_ext.relu_forward(x)
