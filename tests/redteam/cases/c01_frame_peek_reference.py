"""Reaches the harness's stored reference outputs through the caller's frames (sys._getframe,
fetched from the module's namespace by a computed name so no static rule sees it): during the correctness
trials it finds the evaluation object and the trial index and returns a copy of that trial's
reference. With nothing to copy during timing it replays the last result, and the timed-run
re-check (fresh inputs, compared with the reference) catches the replay.

task: relu
expect: rejected
reason: runtime check 'harness_access'
class: 1
device: any
"""
import sys

import torch
import torch.nn as nn

_frame = vars(sys)["_get" + "frame"]


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.last = None

    def forward(self, x):
        f = _frame(1)
        while f is not None:
            # Whatever the harness names it: any local holding the stored references.
            owner = next((v for v in f.f_locals.values() if hasattr(v, "references")), None)
            refs = getattr(owner, "references", None)
            if isinstance(refs, list) and "trial" in f.f_locals:
                self.last = refs[f.f_locals["trial"]]["outputs"][0].to(x.dtype).clone()
                break
            f = f.f_back
        return self.last.clone()
