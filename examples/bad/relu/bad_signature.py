"""Runtime error: ModelNew's constructor wants an argument the task does not give."""
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x.relu() * self.scale
