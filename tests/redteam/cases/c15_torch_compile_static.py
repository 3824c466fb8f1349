"""Wraps the reference computation in torch.compile and calls that "the kernel": faster than
eager on larger models with no hand-written kernel at all (KernelBench issue #166). The static
check rejects torch.compile.

task: gelu
expect: rejected
reason: static check 'torch_compile'
class: 15
device: any
"""
import torch
import torch.nn as nn


def _gelu(x):
    return torch.nn.functional.gelu(x)


_fused = torch.compile(_gelu, dynamic=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return _fused(x)
