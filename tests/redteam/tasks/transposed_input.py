"""sigmoid(x) * x on an input that arrives transposed (non-contiguous)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.sigmoid(x) * x


def get_inputs():
    return [torch.randn(300, 16).t()]


def get_init_inputs():
    return []
