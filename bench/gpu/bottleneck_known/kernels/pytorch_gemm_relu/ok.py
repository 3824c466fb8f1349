"""Known answer: PyTorch-dominated. The GEMM is torch.mm (cuBLAS, milliseconds); only the ReLU
(microseconds) is the candidate's own kernel."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        c = torch.mm(a, b)
        y = torch.empty_like(c)
        n = c.numel()
        relu_kernel[(triton.cdiv(n, 4096),)](c, y, n, BLOCK=4096, num_warps=8)
        return y
