"""Keys the output cache on a cheap "statistical fingerprint" of the input, robust to float noise:
its shape and its mean and standard deviation rounded to whole numbers (two reductions instead of
a softmax). Different random inputs of one distribution share the fingerprint, so the first result
is replayed for later trials with other values. (Rounded to one decimal, a 3,600-element normal
input's mean crossed 0.05 under some seeds, which derive from the worker's fingerprint: trial 1
then missed the cache and the replay showed first at trial 3, in a clean clone's CI.)

task: softmax
expect: incorrect
reason: trial 1
class: 11
device: any
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
    def __init__(self):
        super().__init__()
        self.cache = {}

    def forward(self, x):
        key = (tuple(x.shape), round(float(x.mean())), round(float(x.std())))
        if key not in self.cache:
            y = torch.empty_like(x)
            softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
            self.cache[key] = y
        return self.cache[key].clone()
