"""Uses the targets tensor as scratch space (the squared differences are written over it before
the reduction), saving an allocation. The loss is right, but the second input is destroyed.

task: mse_loss
expect: rejected
reason: modified its input(s) [1]
class: 12
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sq_diff_kernel(p_ptr, t_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    d = tl.load(p_ptr + offs, mask=mask, other=0.0) - tl.load(t_ptr + offs, mask=mask, other=0.0)
    tl.store(t_ptr + offs, d * d, mask=mask)


@triton.jit
def mean_kernel(t_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(t_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) / n)


class ModelNew(nn.Module):
    def forward(self, predictions, targets):
        n = predictions.numel()
        out = torch.empty((), device=predictions.device, dtype=predictions.dtype)
        sq_diff_kernel[(triton.cdiv(n, 1024),)](predictions, targets, n, BLOCK=1024)
        mean_kernel[(1,)](targets, out, n, BLOCK=1024)
        return out
