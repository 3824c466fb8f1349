"""A fallback without the word try: contextlib.suppress swallows the kernel's failure and an if
picks the reference op. The kernel never compiles (tl.dot on 1-D blocks), so every call is
torch.relu. The fallback watch sees every `with` body's exception, and the call went on: rejected
for what happened, not for the word.

task: relu
expect: rejected
reason: a fallback hides a kernel that failed
class: 6
device: any
"""
import contextlib

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.dot(x, x), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        y = None
        with contextlib.suppress(Exception):
            out = torch.empty_like(x)
            relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
            y = out
        if y is None:
            y = torch.relu(x)
        return y
