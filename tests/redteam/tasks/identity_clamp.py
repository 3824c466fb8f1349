"""A degenerate task: clamping to +-1e6 never bites on these inputs, so the op is the identity."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.clamp(x, min=-1e6, max=1e6)


def get_inputs():
    return [torch.randn(16, 300)]


def get_init_inputs():
    return []
