"""The GEMM, which is all the work, goes to cuBLAS through torch.addmm; only the ReLU epilogue is
a Triton kernel. Values match, a Triton kernel does run, and the speedup is the epilogue's
fusion at best. The kernel trace flags the cuBLAS GEMM when PyTorch compute is forbidden (by
default it is allowed: keeping a library GEMM and fusing the rest is a legitimate KernelBench
solution).

task: gemm_relu
expect: rejected
reason: kernel trace
flags: --pytorch-compute forbidden
class: 5
device: gpu
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
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        h = torch.addmm(self.linear.bias, x, self.linear.weight.t())
        y = torch.empty_like(h)
        relu_kernel[(triton.cdiv(h.numel(), 1024),)](h, y, h.numel(), BLOCK=1024)
        return y
