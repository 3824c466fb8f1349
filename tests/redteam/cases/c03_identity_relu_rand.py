"""KernelBench L1 19_ReLU feeds U[0,1) inputs, where ReLU is the identity, so a copy "kernel"
passes there exactly (finding 3.3b). Strict's later trials draw normal inputs with negative
values, and the copy fails.

Under the paper profile, whose own trials use the task's inputs, its integrity trial on
normal inputs catches it.

task: relu_rand
expect: incorrect
reason: (normal inputs)
class: 3
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
