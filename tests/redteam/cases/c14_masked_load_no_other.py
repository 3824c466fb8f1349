"""A row softmax whose padded lanes are loaded with a mask but no `other`: on the GPU the masked
lanes hold undefined values (in practice 0.0), which then enter the max and the sum of
exponentials. Undefined behaviour that is stable on one machine and wrong: each padded lane adds
exp(0 - max) to the denominator.

Correct under the paper profile, by design: the error is within the reference release's
5e-2 on any inputs. The result says so in a finding (less accurate than strict admits) with
the error; strict rejects it. (GPU only: this line was last measured on the H200 before
the integrity trials and the finding existed.)

task: softmax
expect: incorrect
reason: outside tolerance
class: 14
paper: correct, less accurate than strict admits
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
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)  # No other=-inf for the padding.
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        return y
