"""FAULT: Triton "ReLU" for KernelBench level1/19_ReLU whose kernel never terminates.

Before doing any work, every program spins in a while-loop that re-reads a
flag from global memory with a volatile load (so the compiler can neither
hoist the load nor delete the loop) until the flag becomes non-zero. The
flag is a fresh torch.zeros(1) tensor that nothing ever writes, so the
kernel runs forever and the first synchronizing call after the launch
blocks indefinitely. The harness must enforce a wall-clock timeout and kill
the worker process (a hung kernel cannot be cancelled from inside the
process). Under TRITON_INTERPRET=1 the same loop spins on the CPU.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_spin_kernel(x_ptr, y_ptr, flag_ptr, n, BLOCK: tl.constexpr):
    flag = tl.load(flag_ptr, volatile=True)
    while flag == 0:  # HANG: nothing ever sets the flag
        flag = tl.load(flag_ptr, volatile=True)
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.where(x > 0.0, x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        flag = torch.zeros(1, dtype=torch.int32, device=x.device)
        n = x.numel()
        BLOCK = 4096
        relu_spin_kernel[(triton.cdiv(n, BLOCK),)](x, y, flag, n, BLOCK=BLOCK, num_warps=8)
        return y
