"""Freezes the harness's timing inputs by patching the standard library's random.Random (imported
by a computed name): once the correctness calls are over, getrandbits returns a constant, so every
timed run draws its "fresh" inputs from the same seed. The candidate then returns its previous
output whenever the input's first values repeat, and the timed-run re-check agrees, since the
reference sees the same inputs. The random module is outside the identity guard's snapshot.

task: relu
expect: rejected
reason: must not be patched
class: 10
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

_random = __import__("ran" + "dom")


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.key = None
        self.out = None

    def forward(self, x):
        self.calls += 1
        if self.calls == 6:  # The determinism rerun: only timing is left after it.
            setattr(_random.Random, "getrand" + "bits", lambda self, k: 12345)
        key = tuple(x.reshape(-1)[:4].tolist())
        if self.calls > 6 and key == self.key:
            return self.out
        y = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        self.key, self.out = key, y
        return y
