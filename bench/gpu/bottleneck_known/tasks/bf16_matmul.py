import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B for 8192 x 8192 matrices (run with --precision bf16)."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b


def get_inputs():
    return [torch.randn(8192, 8192), torch.randn(8192, 8192)]


def get_init_inputs():
    return []
