"""The lazy subclass of c09_tensor_subclass_static built with type() and a hook name assembled
from pieces, so that no class statement or attribute names it: the static rules see nothing. The
output's exact type is checked at run time: a tensor subclass is rejected.

task: relu
expect: rejected
reason: tensor subclass
class: 9
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


_Base = getattr(torch, "Ten" + "sor")


def _hook(cls, func, types, args=(), kwargs=None):
    for a in args:
        pending = getattr(a, "_pending", None) if isinstance(a, cls) else None
        if pending is not None:
            a._pending = None
            relu_kernel[(triton.cdiv(pending.numel(), 1024),)](pending, a.as_subclass(_Base),
                                                               pending.numel(), BLOCK=1024)
    return getattr(_Base, "__torch_" + "function__").__func__(cls, func, types, args, kwargs or {})


Deferred = type("Deferred", (_Base,), {"__torch_" + "function__": classmethod(_hook)})


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x).as_subclass(Deferred)
        y._pending = x
        return y
