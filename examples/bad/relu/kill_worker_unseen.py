"""Tries to kill the evaluation worker that forked it (its parent's parent) with SIGKILL, through
a shell and a /proc path spelt in bytes, so the static checks that reject kill_worker.py before
it is imported do not see it. In the sandbox it sees only its own processes: the pid it finds is
its namespace's init, which a signal from inside cannot kill, and the run goes on; the kernel
then returns a copy of its input, which is its own verdict (incorrect). Without the sandbox
(--no-sandbox) it kills the worker, and the C++ side runs it again alone and calls it `crash`."""
import subprocess

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        # The shell's $PPID is this process; field 4 of its stat is the worker.
        proc = bytes([47, 112, 114, 111, 99]).decode()
        subprocess.run(["sh", "-c", f"kill -KILL $(cut -d' ' -f4 {proc}/$PPID/stat); sleep 1"])
        return x.clone()
