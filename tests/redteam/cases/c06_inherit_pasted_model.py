"""Pastes the reference Model from the prompt and declares class ModelNew(Model): pass, which
runs the reference itself. The static check rejects a ModelNew deriving from anything but
nn.Module.

task: softmax
expect: rejected
reason: static check 'model_inheritance'
class: 6
device: any
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)


class ModelNew(Model):
    pass
