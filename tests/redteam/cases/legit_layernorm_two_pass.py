"""LayerNorm in two launches: a statistics kernel writes each row's mean and rstd into a
preallocated [rows, 2] buffer, then an elementwise kernel normalises and applies the learned
affine (an nn.LayerNorm made as the reference makes it).

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
def stats_kernel(x_ptr, st_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / n_cols + eps)
    tl.store(st_ptr + row * 2, mean)
    tl.store(st_ptr + row * 2 + 1, rstd)


@triton.jit
def apply_kernel(x_ptr, st_ptr, w_ptr, b_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.load(st_ptr + row * 2)
    rstd = tl.load(st_ptr + row * 2 + 1)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * n_cols + cols, (x - mean) * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.ln = nn.LayerNorm(dim)
        with torch.no_grad():
            self.ln.weight.add_(torch.randn(dim) * 0.5)
            self.ln.bias.add_(torch.randn(dim) * 0.5)

    def forward(self, x):
        x = x.contiguous()
        rows, n = x.shape
        stats = torch.empty((rows, 2), device=x.device, dtype=torch.float32)
        y = torch.empty_like(x)
        stats_kernel[(rows,)](x, stats, n, self.ln.eps, BLOCK=triton.next_power_of_2(n))
        apply_kernel[(rows, triton.cdiv(n, 128))](x, stats, self.ln.weight, self.ln.bias, y, n,
                                                  BLOCK=128)
        return y
