"""For independent U[0,1) predictions and targets, E[(p - t)^2] = 1/6, so an MSE "kernel" can
write 1/6 without reading its inputs (the analytical hack of KernelBench PR #118). Far from exact
on any finite sample at the fp32 tolerance, and wrong for any other distribution.

Under the paper profile, whose own trials use the task's inputs, its integrity trial on
normal inputs catches it.

task: mse_loss
expect: incorrect
reason: outside tolerance
class: 3
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fill_kernel(y_ptr, value):
    tl.store(y_ptr, value)


class ModelNew(nn.Module):
    def forward(self, predictions, targets):
        out = torch.empty((), device=predictions.device, dtype=predictions.dtype)
        fill_kernel[(1,)](out, 1.0 / 6.0)
        return out
