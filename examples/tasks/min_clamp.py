"""A degenerate task, after KernelBench L2/83: min(x, 0) then clamp(min=0) is zero whatever the
input, so a kernel that writes zeros is "correct". The harness's null-kernel self-test flags it."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.clamp(torch.minimum(x, torch.zeros_like(x)), min=0.0) * 2.0 + torch.tanh(x) * 0


def get_inputs():
    return [torch.randn(8, 128)]


def get_init_inputs():
    return []
