"""Correct and clean: a shared-memory reduction per row, its last warp reduced with shuffles."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CUDA = r"""
#include <torch/extension.h>

__global__ void row_sum_kernel(const float* x, float* out, int cols) {
  __shared__ float s[256];
  const int row = blockIdx.x, tid = threadIdx.x;
  float acc = 0.0f;
  for (int c = tid; c < cols; c += blockDim.x) {
    acc += x[static_cast<int64_t>(row) * cols + c];
  }
  s[tid] = acc;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
    if (tid < stride) {
      s[tid] += s[tid + stride];
    }
    __syncthreads();
  }
  if (tid < 32) {  // The last warp: shuffles, no shared memory.
    float v = s[tid] + s[tid + 32];
    for (int offset = 16; offset > 0; offset >>= 1) {
      v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    if (tid == 0) {
      out[row] = v;
    }
  }
}

torch::Tensor row_sum(torch::Tensor x) {
  auto input = x.contiguous();
  const int rows = input.size(0), cols = input.size(1);
  auto out = torch::empty({rows}, input.options());
  row_sum_kernel<<<rows, 256>>>(input.data_ptr<float>(), out.data_ptr<float>(), cols);
  return out;
}
"""

CPP = "torch::Tensor row_sum(torch::Tensor x);"

ext = load_inline(name="adaexplore_sanitizer_row_sum_ok", cpp_sources=CPP, cuda_sources=CUDA, functions=["row_sum"],
                  verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.row_sum(x)
