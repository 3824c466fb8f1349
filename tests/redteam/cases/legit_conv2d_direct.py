"""A direct 3x3 convolution with bias: one program per (image, output channel, block of output
pixels), looping over input channels and the kernel window. Weights from an nn.Conv2d made the
same way as the reference's.

task: conv2d
expect: correct
class: legit
device: any
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def conv2d_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C, H, W, OH, OW,
                  KS: tl.constexpr, BLOCK: tl.constexpr):
    n = tl.program_id(0)
    co = tl.program_id(1)
    p = tl.program_id(2) * BLOCK + tl.arange(0, BLOCK)
    pmask = p < OH * OW
    oh = p // OW
    ow = p % OW
    acc = tl.zeros((BLOCK,), tl.float32)
    for ci in range(0, C):
        for kh in range(KS):
            for kw in range(KS):
                x = tl.load(x_ptr + ((n * C + ci) * H + oh + kh) * W + ow + kw, mask=pmask,
                            other=0.0)
                w = tl.load(w_ptr + ((co * C + ci) * KS + kh) * KS + kw)
                acc += x * w
    acc += tl.load(b_ptr + co)
    tl.store(y_ptr + (n * tl.num_programs(1) + co) * OH * OW + p, acc, mask=pmask)


class ModelNew(nn.Module):
    def __init__(self, cin, cout, k):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k)

    def forward(self, x):
        x = x.contiguous()
        N, C, H, W = x.shape
        cout, _, k, _ = self.conv.weight.shape
        OH, OW = H - k + 1, W - k + 1
        y = torch.empty((N, cout, OH, OW), device=x.device, dtype=x.dtype)
        block = 64
        conv2d_kernel[(N, cout, triton.cdiv(OH * OW, block))](
            x, self.conv.weight, self.conv.bias, y, C, H, W, OH, OW, KS=k, BLOCK=block)
        return y
