"""ReLU over a small 2-D tensor: the smallest task, used by the CPU tests and the quick start."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


batch_size = 16
dim = 1000  # Not a multiple of the block size: the last block is partial.


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
