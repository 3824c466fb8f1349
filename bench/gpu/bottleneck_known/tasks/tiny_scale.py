import torch
import torch.nn as nn


class Model(nn.Module):
    """y = 2x + 1 over 4096 elements: a microsecond of GPU work."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2.0 + 1.0


def get_inputs():
    return [torch.randn(4096)]


def get_init_inputs():
    return []
