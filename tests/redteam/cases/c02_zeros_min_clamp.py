"""Writes zeros on the degenerate task min(x, 0).clamp(min=0) (KernelBench L2/83's shape), where
zeros are the exact answer for every input. Such a "kernel" is correct, so the verdict is
correct; the null-kernel self-test is what exposes the task: it flags it degenerate.

task: min_clamp
expect: correct
class: 2
device: any
degenerate: yes
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fill_kernel(y_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros((BLOCK,), tl.float32) + value, mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        fill_kernel[(triton.cdiv(x.numel(), 1024),)](y, x.numel(), 0.0, BLOCK=1024)
        return y
