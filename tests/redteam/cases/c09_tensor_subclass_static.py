"""Returns a torch.Tensor subclass whose values are computed only when something reads them
(__torch_function__ runs the kernel on first use), so the timed call returns at once and the
work lands in the untimed check. The static check rejects tensor subclasses and their hooks.

task: relu
expect: rejected
reason: static check 'lazy_tensor'
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


class LazyOut(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        for a in args:
            if isinstance(a, LazyOut) and getattr(a, "_pending", None) is not None:
                x = a._pending
                a._pending = None
                relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, a.as_subclass(torch.Tensor),
                                                             x.numel(), BLOCK=1024)
        return super().__torch_function__(func, types, args, kwargs or {})


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x).as_subclass(LazyOut)
        y._pending = x
        return y
