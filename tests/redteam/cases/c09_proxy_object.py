"""Returns a proxy object, not a tensor, that computes the real output the first time any
attribute is asked of it (shape, dtype, reshape...), so the timed call does no work. The output
type check wants an exact torch.Tensor.

task: relu
expect: rejected
reason: not a torch.Tensor
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


class LazyResult:
    def __init__(self, x):
        self._x = x
        self._y = None

    def _value(self):
        if self._y is None:
            self._y = torch.empty_like(self._x)
            relu_kernel[(triton.cdiv(self._x.numel(), 1024),)](self._x, self._y, self._x.numel(),
                                                               BLOCK=1024)
        return self._y

    def __getattr__(self, name):
        return getattr(self._value(), name)

    def __array__(self, *args):
        return self._value().cpu().numpy()


class ModelNew(nn.Module):
    def forward(self, x):
        return LazyResult(x)
