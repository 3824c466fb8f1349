"""A handler that itself fails: the kernel launch lacks its BLOCK argument (a TypeError on the CPU
and the GPU alike), and the except block, meant to fall back, calls a function that does not
exist. Nothing is swallowed:
the call raises, and the verdict is the runtime error with its traceback.

task: relu
expect: runtime_error
reason: NameError
class: 6
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
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        try:
            y = torch.empty_like(x)
            relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel())  # No BLOCK.
            return y
        except Exception:
            return torch_relu_fallback(x)  # noqa: F821 - the handler's own bug.
