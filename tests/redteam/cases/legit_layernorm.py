"""LayerNorm in one kernel per row (mean, biased variance, normalise, affine), using the weight
and bias of an nn.LayerNorm created exactly as the reference creates it (same order, same
in-place perturbation under the same seed).

task: layernorm
expect: correct
class: legit
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * n_cols + cols, d / tl.sqrt(var + eps) * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.ln = nn.LayerNorm(dim)
        with torch.no_grad():
            self.ln.weight.add_(torch.randn(dim) * 0.5)
            self.ln.bias.add_(torch.randn(dim) * 0.5)

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.shape[-1]
        layernorm_kernel[(x.numel() // n,)](x, self.ln.weight, self.ln.bias, y, n, self.ln.eps,
                                            BLOCK=triton.next_power_of_2(n))
        return y
