"""Runtime error: allocates host memory without bound until the harness's memory limit stops it."""
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        hoard = []
        while True:
            chunk = bytearray(64 << 20)
            chunk[::4096] = b"x" * len(chunk[::4096])  # Touch every page so it is resident.
            hoard.append(chunk)
