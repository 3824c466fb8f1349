"""The TF32 switch of c13_precision_flag_static run from a string by exec, which the static rule
does not read. The harness snapshots the precision flags before importing the candidate and
compares them after: a change at import is rejected (and undone).

task: gemm_relu
expect: rejected
reason: runtime check 'dynamic_code'
class: 13
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

exec("torch.backends.cuda.matmul.allow_" + "tf32 = True", {"torch": torch})


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        h = self.linear(x)
        y = torch.empty_like(h)
        relu_kernel[(triton.cdiv(h.numel(), 1024),)](h, y, h.numel(), BLOCK=1024)
        return y
