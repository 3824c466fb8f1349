"""Linear layer, then exact GELU, then a learned per-channel scale: a fused matmul + elementwise
chain with two learned tensors (nn.Linear first, then the scale)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(torch.rand(out_features) + 0.5)

    def forward(self, x):
        return torch.nn.functional.gelu(self.linear(x)) * self.scale


def get_inputs():
    return [torch.randn(20, 48)]


def get_init_inputs():
    return [48, 40]
