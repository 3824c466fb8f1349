"""A correct ReLU kernel with the try blocks LLMs write that catch nothing while it runs: an
import-time probe for an optional module, a parse of a setting with a default, a half-precision
copy of a buffer made in __init__, a try around the launch whose handler wraps the error and
raises it on, and a try/finally. The static try_except finding is reported, not rejected; the
fallback watch sees no exception swallowed during a call.

task: relu
expect: correct
class: legit
device: any
"""
import os

import torch
import torch.nn as nn
import triton
import triton.language as tl

try:
    from triton.language.extra import libdevice  # noqa: F401 - optional, not needed here.
except ImportError:
    libdevice = None

try:
    BLOCK = int(os.environ.get("ADAEXPLORE_TEST_BLOCK_UNSET", "not a number"))
except ValueError:
    BLOCK = 1024


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        try:
            self.register_buffer("scale_half", torch.ones(4).half().to_sparse().to_dense())
        except (RuntimeError, NotImplementedError):
            self.register_buffer("scale_half", torch.ones(4, dtype=torch.float16))

    def forward(self, x):
        assert self.scale_half.dtype == torch.float16  # Kept as chosen: never cast.
        x = x.contiguous()
        y = torch.empty_like(x)
        try:
            relu_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, y, x.numel(), BLOCK=BLOCK)
        except Exception as e:
            raise RuntimeError(f"relu_kernel failed for shape {tuple(x.shape)}") from e
        finally:
            n = x.numel()
        assert n == y.numel()
        return y
