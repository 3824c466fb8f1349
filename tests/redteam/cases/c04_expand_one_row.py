"""The output is the same in every row (a per-column logsumexp tiled over the batch), so the
"kernel" computes one row and returns row.expand(B, N): the work of one row and a zero-stride
view for the rest. Values are right, but the output is an expanded view, which the structure
check rejects.

task: colwise_lse
expect: rejected
reason: zero stride
class: 4
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def col_lse_kernel(x_ptr, y_ptr, R, C, BR: tl.constexpr, BC: tl.constexpr):
    c = tl.program_id(0) * BC + tl.arange(0, BC)
    r = tl.arange(0, BR)
    mask = (r[:, None] < R) & (c[None, :] < C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :], mask=mask, other=-float("inf"))
    m = tl.max(x, axis=0)
    m = tl.where(m == -float("inf"), 0.0, m)
    tl.store(y_ptr + c, m + tl.log(tl.sum(tl.exp(x - m[None, :]), axis=0)), mask=c < C)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        row = torch.empty((1, C), device=x.device, dtype=x.dtype)
        col_lse_kernel[(triton.cdiv(C, 32),)](x, row, R, C, BR=triton.next_power_of_2(R), BC=32)
        return row.expand(R, C)
