"""Reaches Inductor directly (from torch._inductor import ...) to compile the reference op rather
than going through torch.compile; the static rule covers torch._dynamo and torch._inductor
imports too.

task: gelu
expect: rejected
reason: static check 'torch_compile'
class: 15
device: any
"""
import torch
import torch.nn as nn
from torch._inductor import config as inductor_config

inductor_config.max_autotune = True
_fused = None


class ModelNew(nn.Module):
    def forward(self, x):
        global _fused
        if _fused is None:
            _fused = getattr(torch, "compile")(torch.nn.functional.gelu)
        return _fused(x)
