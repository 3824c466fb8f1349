"""A degenerate task: the mean of each softmax row is 1/N whatever the input (an algebraic constant,
as METR found in KernelBench)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1).mean(dim=1)


def get_inputs():
    return [torch.randn(32, 200)]


def get_init_inputs():
    return []
