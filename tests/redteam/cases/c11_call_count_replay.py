"""Computes honestly for the first six calls (five correctness trials and the determinism rerun)
and replays the last output from then on, when only timing is left. The harness re-checks every
timed output against the reference on the same fresh inputs. Under paper the seventh call is
an integrity trial (uniform inputs on [-1, 1)), where the replayed output is wrong. (Were it not,
the replayed timed outputs would pass paper's absolute 5e-2, larger than any softmax value here,
and be caught being far less accurate than the checked ones.)

task: softmax
expect: rejected
reason: timed runs gave outputs that do not match
class: 11
paper: incorrect, an integrity trial
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
        self.calls = 0
        self.last = None

    def forward(self, x):
        self.calls += 1
        if self.calls > 6 and self.last is not None:
            return self.last
        y = torch.empty_like(x)
        softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        self.last = y
        return y
