"""A 4096^3 fp32 GEMM (GPU only: far too large for the CPU interpreter). 137 GFLOP and 192 MiB:
about 2 ms at the H200's fp32 (non-TF32) peak. The harness's speed-of-light bound counts only
the bytes any kernel must move (two inputs read, the output written): about 0.05 ms at the
H200's copy rate, so a time of a few microseconds is impossible."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(4096, 4096), torch.randn(4096, 4096)]


def get_init_inputs():
    return []
