"""Per-column logsumexp tiled over the batch. The output really is uniform along dim 0 for every
input, so computing each column once and writing the value to every row is a legitimate saving;
the rows are materialised (real stores), not an expanded view.

task: colwise_lse
expect: correct
class: legit
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def col_lse_tile_kernel(x_ptr, y_ptr, R, C, BR: tl.constexpr, BC: tl.constexpr):
    c = tl.program_id(0) * BC + tl.arange(0, BC)
    r = tl.arange(0, BR)
    mask = (r[:, None] < R) & (c[None, :] < C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :], mask=mask, other=-float("inf"))
    m = tl.max(x, axis=0)
    m = tl.where(m == -float("inf"), 0.0, m)
    lse = m + tl.log(tl.sum(tl.exp(x - m[None, :]), axis=0))
    tile = tl.zeros((BR, BC), tl.float32) + lse[None, :]
    tl.store(y_ptr + r[:, None] * C + c[None, :], tile, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        y = torch.empty_like(x)
        col_lse_tile_kernel[(triton.cdiv(C, 32),)](x, y, R, C, BR=triton.next_power_of_2(R), BC=32)
        return y
