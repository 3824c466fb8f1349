"""Softmax over a wide row (4096): outputs are small (about 1/4096), the shape of KernelBench
23_Softmax where zeros pass an absolute tolerance of 1e-2."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)


def get_inputs():
    return [torch.randn(4, 4096)]


def get_init_inputs():
    return []
