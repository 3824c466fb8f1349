"""Crash: kills the evaluation worker that forked it (its parent). The C++ side must notice,
restart the worker, and give this candidate a verdict without hanging the run."""
import os
import signal

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        os.kill(os.getppid(), signal.SIGKILL)
        os._exit(0)
