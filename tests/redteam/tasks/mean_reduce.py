"""Mean over the last dimension (a mean-type output, KernelBench L1 48_Mean_reduction_over_a_dimension, small)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.mean(x, dim=self.dim)


def get_inputs():
    return [torch.randn(16, 2048)]


def get_init_inputs():
    return [1]
