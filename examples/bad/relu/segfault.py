"""Crash: a real SIGSEGV in the forward pass (faulthandler's own test of itself dereferences a
null pointer; no ctypes, which the static checks reject before anything runs)."""
import faulthandler

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        faulthandler._sigsegv()
        return x
