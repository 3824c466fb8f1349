"""Replaces time.perf_counter with setattr on a module found by __import__, the attribute name
assembled at run time, after the first forward call (so an import-time check sees nothing
either): from then on every host-timed call appears ten times faster than it is.

task: relu
expect: rejected
reason: must not be patched
class: 10
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

_mod = __import__("ti" + "me")
_name = "perf_" + "counter"
_real = getattr(_mod, _name)
_origin = _real()


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        if getattr(_mod, _name) is _real:
            setattr(_mod, _name, lambda: _origin + (_real() - _origin) / 10.0)
        return y
