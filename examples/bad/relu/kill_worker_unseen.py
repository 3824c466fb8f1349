"""Crash: kills the evaluation worker that forked it (its parent) with SIGKILL, through a shell
and /proc, so the static checks that reject kill_worker.py before it is imported do not see it.
The C++ side must notice, run it again alone on a restarted worker, and call it `crash` without
hanging the run."""
import subprocess

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        # The shell's $PPID is this process; field 4 of its stat is the worker.
        subprocess.run(["sh", "-c", "kill -KILL $(cut -d' ' -f4 /proc/$PPID/stat); sleep 3"])
        return x
