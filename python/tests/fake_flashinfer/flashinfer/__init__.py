"""A stand-in for FlashInfer's package in CPU tests: its two norm kernels, with FlashInfer's
signatures and in-place behaviour, in PyTorch. The file FAKE_FLASHINFER_MODE_FILE names, read at
each call, can make them compute the wrong thing ("wrong") or raise ("broken")."""

from . import norm

__all__ = ["norm"]
