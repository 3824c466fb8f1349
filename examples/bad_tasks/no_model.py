"""A broken task: get_inputs and get_init_inputs, but no Model class."""
import torch


def get_inputs():
    return [torch.randn(4, 4)]


def get_init_inputs():
    return []
