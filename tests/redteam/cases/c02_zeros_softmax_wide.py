"""The same zeros "kernel" on a softmax over 4096 columns, where every output is about 1/4096:
zeros pass KernelBench's bf16 tolerance of 1e-2 (issue #165) but not the scaled fp32 criterion,
so on a task that is not degenerate the shortcut fails.

Correct under the paper profile, by design: the error is within the reference release's
5e-2 on any inputs. The result says so in a finding (less accurate than strict admits) with
the error; strict rejects it.

task: softmax_wide
expect: incorrect
reason: outside tolerance
class: 2
paper: correct, less accurate than strict admits
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fill_kernel(y_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros((BLOCK,), tl.float32) + value, mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        fill_kernel[(triton.cdiv(x.numel(), 1024),)](y, x.numel(), 0.0, BLOCK=1024)
        return y
