"""x * sigmoid(x) * 2 + bias rewritten in PyTorch alone (torch.addcmul on SiLU): no kernel of its
own. The reference release counts such rewrites, and `--pytorch-compute unrestricted` lets them
count here; by default the launch hooks and the kernel trace reject them (c05_pytorch_rewrite).

task: swish_bias
expect: correct
flags: --pytorch-compute unrestricted
class: legit
device: any
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(n))

    def forward(self, x):
        return torch.addcmul(self.bias, F.silu(x), torch.full_like(self.bias, 2.0))
