"""Compile error: C++ that does not compile, through load_inline."""
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP = r"""
#include <torch/extension.h>
torch::Tensor relu_forward(torch::Tensor x) {
  return x.relu() + undefined_symbol;
}
"""

ext = load_inline(name="adaexplore_example_broken_cpp", cpp_sources=CPP,
                  functions=["relu_forward"], verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu_forward(x)
