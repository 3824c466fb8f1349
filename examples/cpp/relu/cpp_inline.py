"""Correct: a C++ kernel built with torch.utils.cpp_extension.load_inline (KernelBench's native
format). This one is host C++ so it runs in CPU mode; CUDA kernels use cuda_sources the same way."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP = r"""
#include <torch/extension.h>

torch::Tensor relu_forward(torch::Tensor x) {
  auto input = x.contiguous();
  auto out = torch::empty_like(input);
  const float* in = input.data_ptr<float>();
  float* o = out.data_ptr<float>();
  const int64_t n = input.numel();
  for (int64_t i = 0; i < n; ++i) {
    o[i] = in[i] > 0.0f ? in[i] : 0.0f;
  }
  return out;
}
"""

relu_ext = load_inline(name="adaexplore_example_relu_cpp", cpp_sources=CPP,
                       functions=["relu_forward"], extra_cflags=["-O2"], verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return relu_ext.relu_forward(x)
