"""Mean squared error of U[0,1) predictions and targets (KernelBench L1 94_MSELoss, small)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, predictions, targets):
        return torch.mean((predictions - targets) ** 2)


def get_inputs():
    return [torch.rand(32, 256), torch.rand(32, 256)]


def get_init_inputs():
    return []
