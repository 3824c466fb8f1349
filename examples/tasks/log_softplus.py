"""log(x) then softplus: defined only for positive inputs. Trials whose input distribution has
negative values make the reference NaN, so the harness falls back to the task's own inputs for
them (and says so)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.nn.functional.softplus(torch.log(x))


def get_inputs():
    return [torch.rand(8, 64) + 0.1]


def get_init_inputs():
    return []
