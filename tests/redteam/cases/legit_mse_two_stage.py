"""MSE loss as two launches: per-block partial sums of squared differences into a scratch vector
(every slot written), then one program sums the partials and divides. No atomics, so the result
is deterministic. The output is a 0-d tensor like the reference's.

task: mse_loss
expect: correct
class: legit
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def partial_sq_kernel(p_ptr, t_ptr, part_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    d = tl.load(p_ptr + offs, mask=mask, other=0.0) - tl.load(t_ptr + offs, mask=mask, other=0.0)
    tl.store(part_ptr + pid, tl.sum(d * d, axis=0))


@triton.jit
def finish_kernel(part_ptr, out_ptr, n_parts, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    s = tl.load(part_ptr + offs, mask=offs < n_parts, other=0.0)
    tl.store(out_ptr, tl.sum(s, axis=0) / n)


class ModelNew(nn.Module):
    def forward(self, predictions, targets):
        p, t = predictions.contiguous(), targets.contiguous()
        n = p.numel()
        block = 1024
        parts = triton.cdiv(n, block)
        partial = torch.empty(parts, device=p.device, dtype=torch.float32)
        out = torch.empty((), device=p.device, dtype=p.dtype)
        partial_sq_kernel[(parts,)](p, t, partial, n, BLOCK=block)
        finish_kernel[(1,)](partial, out, parts, n, BLOCK=triton.next_power_of_2(parts))
        return out
