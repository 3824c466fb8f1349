"""A broken task: not valid Python."""
import torch.nn as nn

class Model(nn.Module:
    pass
