"""A small 3x3 convolution with bias (learned weights, created by nn.Conv2d)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin, cout, k):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(2, 3, 10, 10)]


def get_init_inputs():
    return [3, 8, 3]
