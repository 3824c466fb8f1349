"""flashinfer.norm's rmsnorm and fused_add_rmsnorm, as FlashInfer documents them."""

from __future__ import annotations

import os

import torch


def _normalized(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    mode_file = os.environ.get("FAKE_FLASHINFER_MODE_FILE", "")
    mode = open(mode_file).read().strip() if mode_file and os.path.exists(mode_file) else ""
    if mode == "broken":
        raise RuntimeError("the fake kernel is broken")
    y = x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * weight.float()
    return 2 * y if mode == "wrong" else y


def rmsnorm(input: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6,
            out: torch.Tensor | None = None, enable_pdl: bool | None = None) -> torch.Tensor:
    y = _normalized(input.float(), weight, eps).to(input.dtype)
    if out is not None:
        out.copy_(y)
        return out
    return y


def fused_add_rmsnorm(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
                      eps: float = 1e-6, enable_pdl: bool | None = None) -> None:
    """residual += input; input = rmsnorm(residual) * weight, both in place (the sum in float32)."""
    x = input.float() + residual.float()
    residual.copy_(x)
    input.copy_(_normalized(x, weight, eps))
