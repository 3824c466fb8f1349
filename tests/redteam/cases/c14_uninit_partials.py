"""A two-stage row mean whose scratch buffer of partial sums comes from torch.empty with a
power-of-two number of slots per row, of which only the first few are written; the second stage
sums all of them, unmasked. The unwritten slots are whatever the allocator left there (zeros on
a fresh page, so it often "works"); on the GPU the harness poisons freed memory with NaN first.

task: mean_reduce
expect: incorrect
reason: NaN/Inf
class: 14
device: gpu
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def partial_kernel(x_ptr, part_ptr, n_cols, SLOTS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    blk = tl.program_id(1)
    cols = blk * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(part_ptr + row * SLOTS + blk, tl.sum(x, axis=0))


@triton.jit
def finish_kernel(part_ptr, y_ptr, n_cols, SLOTS: tl.constexpr):
    row = tl.program_id(0)
    p = tl.load(part_ptr + row * SLOTS + tl.arange(0, SLOTS))  # Reads unwritten slots too.
    tl.store(y_ptr + row, tl.sum(p, axis=0) / n_cols)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        block = 256  # A power of two, as tl.arange needs on the GPU.
        blocks = triton.cdiv(cols, block)  # 8 for 2048 columns...
        slots = triton.next_power_of_2(blocks + 1)  # ...in 16 slots, half never written.
        part = torch.empty((rows, slots), device=x.device, dtype=torch.float32)
        y = torch.empty(rows, device=x.device, dtype=x.dtype)
        partial_kernel[(rows, blocks)](x, part, cols, SLOTS=slots, BLOCK=block)
        finish_kernel[(rows,)](part, y, cols, SLOTS=slots)
        return y
