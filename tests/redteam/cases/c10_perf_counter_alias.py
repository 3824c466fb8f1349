"""The clock of c10_perf_counter_static, installed through an alias of the time module
(import time as _clock_mod), which the static rule does not resolve: only a runtime check of
the timers' identity catches it.

task: relu
expect: rejected
reason: must not be patched
class: 10
device: any
"""
import time as _clock_mod

import torch
import torch.nn as nn
import triton
import triton.language as tl

_real = _clock_mod.perf_counter
_hidden = [0.0]


def _clock():
    return _real() - _hidden[0]


_clock_mod.perf_counter = _clock


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        start = _real()
        y = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        _hidden[0] += _real() - start
        return y
