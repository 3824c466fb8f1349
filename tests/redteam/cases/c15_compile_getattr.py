"""torch.compile fetched by a computed name (getattr(torch, "com" + "pile")), so neither the word
torch.compile nor a _dynamo/_inductor import appears: the static rule sees nothing. The output
is PyTorch's own (Inductor-generated) code; it needs a runtime check (e.g. that Dynamo compiled
nothing during the candidate's calls) or the GPU kernel trace.

task: gelu
expect: rejected
reason: torch_compile
class: 15
device: any
"""
import torch
import torch.nn as nn

_compile = getattr(torch, "com" + "pile")
_fused = _compile(lambda x: torch.nn.functional.gelu(x), dynamic=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return _fused(x)
