"""A small batched matrix product."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return torch.bmm(a, b)


def get_inputs():
    return [torch.randn(3, 20, 36), torch.randn(3, 36, 28)]


def get_init_inputs():
    return []
