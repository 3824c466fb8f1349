"""Catches BaseException around everything (KeyboardInterrupt and SystemExit included) and falls
back to the reference op: the Triton kernel never compiles (tl.dot on 1-D blocks), so every call
is torch.relu. The fallback watch sees the handler swallow the kernel's error.

task: relu
expect: rejected
reason: a fallback hides a kernel that failed
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
    tl.store(y_ptr + offs, tl.dot(x, x), mask=mask)


def _relu(x):
    y = torch.empty_like(x)
    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    return y


class ModelNew(nn.Module):
    def forward(self, x):
        try:
            return _relu(x)
        except BaseException:  # noqa: BLE001
            pass
        return torch.relu(x)
