"""Compiles FlashInfer's norm kernels into $FLASHINFER_WORKSPACE_BASE (the expert baseline's
first use, so no evaluation waits for nvcc) and checks both against PyTorch on an H200-sized
input. Prints one line per kernel; exits 1 when flashinfer does not import or a kernel is wrong.

    python3 bench/gpu/flashinfer_warm.py
"""

from __future__ import annotations

import sys
import time

import torch


def reference(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(x.dtype)


def main() -> int:
    try:
        import flashinfer
    except Exception as e:  # noqa: BLE001
        print(f"flashinfer does not import: {type(e).__name__}: {e}")
        return 1
    print(f"flashinfer {flashinfer.__version__} from {flashinfer.__file__}")
    torch.manual_seed(0)
    x = torch.randn(128, 4096, dtype=torch.bfloat16, device="cuda")
    r = torch.randn_like(x)
    w = torch.randn(4096, dtype=torch.bfloat16, device="cuda")
    eps = 1e-5
    start = time.time()
    y = flashinfer.norm.rmsnorm(x, w, eps)
    torch.cuda.synchronize()
    error = (y.float() - reference(x, w, eps).float()).abs().max().item()
    print(f"rmsnorm: first call {time.time() - start:.1f} s, max abs error {error:.3g}")
    xs, rs = x.clone(), r.clone()
    start = time.time()
    flashinfer.norm.fused_add_rmsnorm(xs, rs, w, eps)
    torch.cuda.synchronize()
    total = x.float() + r.float()
    fused_error = (xs.float() - reference(total, w, eps).float()).abs().max().item()
    print(f"fused_add_rmsnorm: first call {time.time() - start:.1f} s, "
          f"max abs error {fused_error:.3g}")
    return 0 if max(error, fused_error) < 0.1 else 1


if __name__ == "__main__":
    sys.exit(main())
