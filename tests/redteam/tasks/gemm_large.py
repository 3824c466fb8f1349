"""A 4096^3 fp32 GEMM (GPU only: far too large for the CPU interpreter). 137 GFLOP and 192 MiB:
about 2 ms at the H200's fp32 (non-TF32) peak; even at its bf16 matrix peak, the harness's
speed-of-light bound, it needs about 0.14 ms, so a time far below that is impossible."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(4096, 4096), torch.randn(4096, 4096)]


def get_init_inputs():
    return []
