"""Crash: dereferences a null pointer (SIGSEGV) in the forward pass."""
import ctypes

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        ctypes.string_at(0)
        return x
