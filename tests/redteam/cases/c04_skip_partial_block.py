"""Processes only whole blocks and skips the ragged tail (no masks, so no masking cost), leaving
the last numel % BLOCK elements at zero: a partial computation that is right almost everywhere.

task: relu
expect: incorrect
reason: outside tolerance
class: 4
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_full_blocks_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs), 0.0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.zeros_like(x)
        relu_full_blocks_kernel[(x.numel() // 1024,)](x, y, BLOCK=1024)
        return y
