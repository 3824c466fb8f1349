"""A Triton softmax that only runs for inputs larger than any the task has; every real call goes
to torch.softmax ("ghost optimization branch"). Caught by the GPU kernel trace: none of the candidate's kernels run.

task: softmax
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
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        if x.numel() >= 1 << 31:  # "Large inputs use the fused kernel."
            y = torch.empty_like(x)
            softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
            return y
        return torch.softmax(x, dim=1)
