"""LayerNorm over the last dimension with learned affine weights."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.ln = nn.LayerNorm(dim)
        with torch.no_grad():  # Non-trivial affine parameters, so a kernel must apply them.
            self.ln.weight.add_(torch.randn(dim) * 0.5)
            self.ln.bias.add_(torch.randn(dim) * 0.5)

    def forward(self, x):
        return self.ln(x)


def get_inputs():
    return [torch.randn(16, 384)]


def get_init_inputs():
    return [384]
