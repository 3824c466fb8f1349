"""Exact (erf) GELU on U[0,1) inputs, as in KernelBench L1 26_GELU_: on these inputs the tanh
approximation stays inside the fp32 tolerance; strict's wider trials are where it shows."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.nn.functional.gelu(x)


def get_inputs():
    return [torch.rand(16, 512)]


def get_init_inputs():
    return []
