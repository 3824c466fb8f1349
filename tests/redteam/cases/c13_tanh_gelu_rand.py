"""The tanh approximation of GELU for the exact (erf) GELU on the U[0,1) task (26_GELU_'s
inputs), where it stays inside the fp32 tolerance (0.91x, per the harness docs). Strict's wider
trials (normal, rescaled, heavy-tailed inputs) reach the region where it is off by a few times 1e-4
(which of them first depends on the seeds, which change with the worker's sources).

Correct under the paper profile, by design: its tolerance is the reference release's 5e-2,
which admits reduced precision. The result says so in a finding (less accurate than strict admits)
with the error; strict rejects it.

task: gelu_rand
expect: incorrect
reason: elements outside tolerance
class: 13
paper: correct, less accurate than strict admits
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    t = 2.0 * tl.sigmoid(2.0 * u) - 1.0  # tanh(u)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + t), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        gelu_tanh_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
