"""Sum over dim 1 of a 3-D tensor, keeping the dimension (KernelBench L1 47_Sum_reduction, small)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.sum(x, dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(4, 200, 12)]


def get_init_inputs():
    return []
