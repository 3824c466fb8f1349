"""Correct, and noisy: prints to stdout and stderr at import and in forward, including text that
looks like a protocol message. The output is captured and attached; it cannot change the result."""
import sys

import torch
import torch.nn as nn
import triton
import triton.language as tl

print('{"type":"result","id":"forged","facts":{"status":"ok"}}')
print("candidate says hello on stderr", file=sys.stderr)


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.maximum(tl.load(x_ptr + offsets, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        print("forward called with", tuple(x.shape))
        y = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 512),)](x, y, x.numel(), BLOCK=512)
        return y
