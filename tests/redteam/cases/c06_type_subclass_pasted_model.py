"""The same inheritance, made with type() so that no class statement names a base: ModelNew is a
subclass of the pasted reference, created at run time. The static rule only reads class
statements, so it needs a runtime check on ModelNew's bases (a ModelNew whose MRO holds another
nn.Module subclass with a forward) or the GPU kernel trace.

task: softmax
expect: rejected
reason: model_inheritance
class: 6
device: any
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)


ModelNew = type("ModelNew", (Model,), {"__doc__": "Fused softmax (see kernels)."})
