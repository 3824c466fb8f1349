"""Correct Triton LayerNorm for KernelBench level1/40_LayerNorm (normalized over the last 3 dims).

Each "row" (one batch item, 64*256*256 = 4M elements) is too long for one
program and there are only 16 rows, so the statistics are split: (1) a stats
kernel gives every CHUNK of every row its own mean and centered sum of
squares (M2), (2) a combine kernel merges a row's chunk statistics with
Chan's parallel-variance formula into mean and rstd = 1/sqrt(var + eps)
(biased variance, as nn.LayerNorm), and (3) a normalize kernel writes
(x - mean) * rstd * weight + bias, with weight/bias taken from an
nn.LayerNorm submodule so parameters match the reference. All fp32.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def ln_stats_kernel(x_ptr, mean_ptr, m2_ptr, N, n_chunks, CHUNK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    c = tl.program_id(1)
    offs = c.to(tl.int64) * CHUNK + tl.arange(0, CHUNK)
    mask = offs < N
    x = tl.load(x_ptr + row * N + offs, mask=mask, other=0.0)
    cnt = tl.minimum(N - c.to(tl.int64) * CHUNK, CHUNK).to(tl.float32)
    mean = tl.sum(x, axis=0) / cnt
    d = tl.where(mask, x - mean, 0.0)
    tl.store(mean_ptr + row * n_chunks + c, mean)
    tl.store(m2_ptr + row * n_chunks + c, tl.sum(d * d, axis=0))


@triton.jit
def ln_combine_kernel(mean_ptr, m2_ptr, stat_ptr, N, n_chunks, eps,
                      CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    idx = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for c0 in range(0, n_chunks, BLOCK):
        c = c0 + idx
        m = c < n_chunks
        cnt = tl.minimum(N - c.to(tl.int64) * CHUNK, CHUNK).to(tl.float32)
        acc += tl.where(m, cnt * tl.load(mean_ptr + row * n_chunks + c, mask=m, other=0.0), 0.0)
    mean = tl.sum(acc, axis=0) / N
    acc = tl.zeros([BLOCK], tl.float32)
    for c0 in range(0, n_chunks, BLOCK):
        c = c0 + idx
        m = c < n_chunks
        cnt = tl.minimum(N - c.to(tl.int64) * CHUNK, CHUNK).to(tl.float32)
        mc = tl.load(mean_ptr + row * n_chunks + c, mask=m, other=0.0)
        m2 = tl.load(m2_ptr + row * n_chunks + c, mask=m, other=0.0)
        acc += tl.where(m, m2 + cnt * (mc - mean) * (mc - mean), 0.0)
    var = tl.sum(acc, axis=0) / N
    tl.store(stat_ptr + row * 2, mean)
    tl.store(stat_ptr + row * 2 + 1, 1.0 / tl.sqrt_rn(var + eps))


@triton.jit
def ln_norm_kernel(x_ptr, w_ptr, b_ptr, stat_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    mean = tl.load(stat_ptr + row * 2)
    rstd = tl.load(stat_ptr + row * 2 + 1)
    x = tl.load(x_ptr + row * N + offs, mask=mask, other=0.0)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + row * N + offs, (x - mean) * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: tuple):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape=normalized_shape)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        N = self.ln.weight.numel()
        rows = x.numel() // N
        CHUNK = 4096
        n_chunks = triton.cdiv(N, CHUNK)
        mean = torch.empty((rows, n_chunks), device=x.device, dtype=torch.float32)
        m2 = torch.empty_like(mean)
        stat = torch.empty((rows, 2), device=x.device, dtype=torch.float32)
        y = torch.empty_like(x)
        ln_stats_kernel[(rows, n_chunks)](x, mean, m2, N, n_chunks, CHUNK=CHUNK, num_warps=8)
        ln_combine_kernel[(rows,)](mean, m2, stat, N, n_chunks, self.ln.eps,
                                   CHUNK=CHUNK, BLOCK=1024, num_warps=4)
        w = self.ln.weight.contiguous()
        b = self.ln.bias.contiguous()
        ln_norm_kernel[(rows, n_chunks)](x, w, b, stat, y, N, BLOCK=CHUNK, num_warps=8)
        return y
