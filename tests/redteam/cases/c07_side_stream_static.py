"""Launches the kernel on a fresh non-blocking side stream and returns without joining it, so the
events on the current stream time almost nothing (KernelBench's non_default_stream_kernel). The
static check rejects torch.cuda.Stream on any machine.

task: relu
expect: rejected
reason: static check 'streams'
class: 7
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


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        if x.is_cuda:
            side = torch.cuda.Stream()  # Pool streams are non-blocking.
            with torch.cuda.stream(side):
                relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        else:
            relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
