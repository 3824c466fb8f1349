"""Slows the reference where it runs beside the candidate, not the candidate: at import, a `gc`
walk (in a module the kernel writes and imports, past the static rules) finds the reference's
Model instance and shadows its forward with one that adds matmuls after the reference's own
work. The reference's outputs stay right; only its time beside the candidate grows (the
reference timed in a clean process would not have it).

task: relu
expect: rejected
reason: reference model Model.forward
class: 10
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y

# The payload goes through a file the kernel writes and imports: the static rules never see it.
import os as _os, sys as _sys
with open(_os.path.join(_os.getcwd(), "payload_c10_slow_reference_instance.py"), "w") as _f:
    _f.write('import gc\nimport torch\n\n\ndef slowed(forward):\n    def slow(*args, **kwargs):\n        out = forward(*args, **kwargs)\n        pad = torch.ones(256, 256, device=out.device)\n        for _ in range(20):\n            pad = pad @ pad / 256\n        return out\n    return slow\n\n\nfor o in gc.get_objects():\n    if isinstance(o, torch.nn.Module) and type(o).__name__ == "Model":\n        o.forward = slowed(o.forward)\n')
_sys.path.insert(0, _os.getcwd())
__import__("payload_c10_slow_reference_instance")
