"""PyTorch does all the work; a Triton kernel that is never launched carries the name of the aten
kernel that runs GELU (`vectorized_elementwise_kernel`), so that a trace matching names anywhere
in a kernel's name would count aten's kernel as the candidate's. Caught by the kernel trace: a
defined name claims a kernel only as its whole name, never in PyTorch's namespaces.

task: gelu
expect: rejected
reason: kernel trace
class: 5
device: gpu
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def vectorized_elementwise_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        if x.numel() < 0:  # Never: the kernel only has to exist.
            vectorized_elementwise_kernel[(1,)](x, x, 0, BLOCK=1024)
        return torch.nn.functional.gelu(x)
