"""Reads the harness's state through its frames (sys._getframe by a computed name, so the static
rule sees nothing) and never computes: during the correctness trials it returns a copy of the
stored reference for the trial's index; during timing it reads the calling line of the timing
loop (linecache) to tell whether the reference has just run, returns a copy of that output if
so, and otherwise calls the harness's own reference model. Every output is the reference's, so
every value check passes. The harness's docs list "candidate and checker share one process" as
a known limit; closing it needs a runtime guard on frame and gc access (e.g. a sys.addaudithook
for sys._getframe and gc.get_objects) or a process split.

task: relu
expect: rejected
reason: harness_access
class: 10
device: any
"""
import linecache
import sys

import torch
import torch.nn as nn

_frame = getattr(sys, "_get" + "frame")


class ModelNew(nn.Module):
    def forward(self, x):
        f = _frame(1)
        evaluation, trial, ref_first, ref_out = None, None, False, None
        while f is not None:
            local = f.f_locals
            # Whatever the harness names it: any local holding the stored references.
            owner = next((v for v in local.values() if hasattr(v, "references")), None)
            if evaluation is None and owner is not None:
                evaluation = owner
                trial = local.get("trial")
            if "ref_out" in local and "samples" in local:
                before = linecache.getline(f.f_code.co_filename, f.f_lineno - 1)
                ref_first = "ref_out" in before and "timer.time" in before
                ref_out = local["ref_out"]
            f = f.f_back
        if trial is not None:
            return evaluation.references[trial]["outputs"][0].to(x.dtype).clone()
        if ref_first:
            return ref_out.clone()
        return evaluation.ref_model(x).clone()
