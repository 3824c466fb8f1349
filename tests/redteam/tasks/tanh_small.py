"""tanh of small inputs (U[0,1) * 1e-3): a low-order Taylor series matches on these inputs."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.tanh(x)


def get_inputs():
    return [torch.rand(16, 256) * 1e-3]


def get_init_inputs():
    return []
