"""MSE over a quarter of the elements (every 4th), rescaled as a mean of the sample: the
subsampling hack of KernelBench PR #118 on a mean-type loss.

Correct under the paper profile, by design: the error is within the reference release's
5e-2 on any inputs. The result says so in a finding (less accurate than strict admits) with
the error; strict rejects it.

task: mse_loss
expect: incorrect
reason: outside tolerance
class: 4
paper: correct, less accurate than strict admits
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sampled_mse_kernel(p_ptr, t_ptr, out_ptr, n, STEP: tl.constexpr, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n, BLOCK * STEP):
        offs = start + tl.arange(0, BLOCK) * STEP
        mask = offs < n
        d = tl.load(p_ptr + offs, mask=mask, other=0.0) - tl.load(t_ptr + offs, mask=mask, other=0.0)
        acc += d * d
    tl.store(out_ptr, tl.sum(acc, axis=0) / ((n + STEP - 1) // STEP))


class ModelNew(nn.Module):
    def forward(self, predictions, targets):
        p, t = predictions.contiguous(), targets.contiguous()
        out = torch.empty((), device=p.device, dtype=p.dtype)
        sampled_mse_kernel[(1,)](p, t, out, p.numel(), STEP=4, BLOCK=512)
        return out
