import torch


def run(hidden_states, residual, weight):
    x = hidden_states.float() + residual.float()
    inv_rms = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + 1e-5)
    return (x * inv_rms * weight.float()).to(hidden_states.dtype)
