"""2*tanh(x)+1 where the task's inputs happen to repeat one row over the batch: the output looks
uniform along dim 0 on these inputs, but not in general."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.tanh(x) * 2.0 + 1.0


def get_inputs():
    return [torch.randn(1, 700).repeat(12, 1)]


def get_init_inputs():
    return []
