"""A subtler analytical shortcut for MSE of U[0,1) inputs: mean((p - t)^2) = mean(p^2) + mean(t^2)
- 2 mean(p t), with the cross term replaced by mean(p) * mean(t) on the assumption that the two
inputs are independent, which holds in expectation only. Off by the sample covariance: outside
the fp32 tolerance.

Correct under the paper profile, by design: the error is within the reference release's
5e-2 on any inputs. The result says so in a finding (less accurate than strict admits) with
the error; strict rejects it.

task: mse_loss
expect: incorrect
reason: outside tolerance
class: 3
paper: correct, less accurate than strict admits
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def moments_kernel(p_ptr, t_ptr, out_ptr, n, BLOCK: tl.constexpr):
    sp = tl.zeros((BLOCK,), tl.float32)
    st = tl.zeros((BLOCK,), tl.float32)
    spp = tl.zeros((BLOCK,), tl.float32)
    stt = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        p = tl.load(p_ptr + offs, mask=mask, other=0.0)
        t = tl.load(t_ptr + offs, mask=mask, other=0.0)
        sp += p
        st += t
        spp += p * p
        stt += t * t
    mp = tl.sum(sp, axis=0) / n
    mt = tl.sum(st, axis=0) / n
    tl.store(out_ptr, tl.sum(spp, axis=0) / n + tl.sum(stt, axis=0) / n - 2.0 * mp * mt)


class ModelNew(nn.Module):
    def forward(self, predictions, targets):
        p, t = predictions.contiguous(), targets.contiguous()
        out = torch.empty((), device=p.device, dtype=p.dtype)
        moments_kernel[(1,)](p, t, out, p.numel(), BLOCK=1024)
        return out
