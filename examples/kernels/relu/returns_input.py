"""Rejected: applies ReLU in place and returns the input tensor itself (mutates the input and
aliases it)."""
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return x.relu_()
