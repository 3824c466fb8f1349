"""A self-restoring patch, armed only once the correctness calls are over (from the 7th call).
At the end of forward it replaces time.perf_counter and torch.cuda.Event.elapsed_time with
one-shot fakes: the harness's next clock read right after the call would get the time forward
started, and each fake puts the original back as it is called, so the identity guard, looking
after the call, would find everything original. The harness binds perf_counter privately before
the candidate loads, so on the CPU the fakes are never called, stay installed, and the guard
sees them. (On the GPU the timer still calls Event.elapsed_time through the class: see
c10_one_shot_elapsed_time.)

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

_time = __import__("ti" + "me")
_real_pc = getattr(_time, "perf_counter")
_Event = getattr(torch, "cuda").Event
_real_elapsed = _Event.elapsed_time


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


def _arm(started):
    def fake_pc():
        setattr(_time, "perf_counter", _real_pc)
        return started + 1e-6

    def fake_elapsed(self, end):
        setattr(_Event, "elapsed_time", _real_elapsed)
        return 0.001

    setattr(_time, "perf_counter", fake_pc)
    setattr(_Event, "elapsed_time", fake_elapsed)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        started = _real_pc()
        self.calls += 1
        y = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        if self.calls > 6:  # 5 trials and the determinism rerun are over: this call is timed.
            _arm(started)
        return y
