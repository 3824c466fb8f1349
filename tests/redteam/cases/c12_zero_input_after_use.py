"""Computes the right output, then zeroes its input (KernelBench's zero_out_kernel): a harness
that runs the reference after the candidate on the same tensors then compares against the
reference of zeros. The harness checks that inputs are bit-identical after the call.

task: softmax
expect: rejected
reason: modified its input
class: 12
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_then_zero_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)
    tl.store(x_ptr + row * n_cols + cols, tl.zeros((BLOCK,), tl.float32), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        softmax_then_zero_kernel[(x.shape[0],)](x, y, x.shape[1],
                                                BLOCK=triton.next_power_of_2(x.shape[1]))
        return y
