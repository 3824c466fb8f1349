"""Caches each output under its input's data_ptr (and shape), switched on only after the first six
calls (the correctness trials and the determinism rerun), so it only serves the timing loop: a
benchmark that times the same input tensors over and over gets the cached result for free
(CUDA-L1's address-keyed cache). The harness gives every timed run new values, and every other
run the previous run's buffers: the cache then serves an output that belongs to other values,
and the timed-run re-check catches it. (With fresh buffers only, it was caught only when the
allocator happened to hand back a cached address: on the H200 that changed with an unrelated
refactor of the worker.)

task: relu
expect: rejected
reason: timed runs gave outputs that do not match
class: 11
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.cache = {}

    def forward(self, x):
        self.calls += 1
        key = (x.data_ptr(), tuple(x.shape))
        if self.calls > 6 and key in self.cache:
            return self.cache[key]
        y = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        if self.calls > 6:
            self.cache[key] = y
        return y
