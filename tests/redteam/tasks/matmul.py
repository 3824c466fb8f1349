"""A small fp32 matrix product with sizes that are not multiples of any block size."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(50, 72), torch.randn(72, 44)]


def get_init_inputs():
    return []
