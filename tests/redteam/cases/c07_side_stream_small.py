"""A microsecond elementwise kernel on a side stream the caller never waits for (reached
through getattr, so no static rule sees it): the timed stream's events see nearly nothing, and
the escaped work is shorter than the synchronise's own latency. Only the kernel trace's marker
sees it run on past the point where the caller's stream was done.

task: gelu
expect: rejected
reason: escaped the timed stream
class: 7
device: gpu
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

_cuda = getattr(torch, "cu" + "da")
_Side = getattr(_cuda, "Str" + "eam")
_enter = getattr(_cuda, "str" + "eam")


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.side = None

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if self.side is None:
            self.side = _Side()
        self.side.wait_stream(_cuda.current_stream())
        with _enter(self.side):
            gelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
