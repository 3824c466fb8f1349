"""Known answer: latency-bound with a tiny occupancy limited by the grid. The whole ReLU runs in
one program (one block of 4 warps for the GPU's 132 SMs), looping over the tensor."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_one_block(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        relu_one_block[(1,)](x, y, x.numel(), BLOCK=1024, num_warps=4)
        return y
