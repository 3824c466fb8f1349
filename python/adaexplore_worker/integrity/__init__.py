"""Watching candidate code: the static rules its source breaks (integrity.py), and in the process
it runs in, the audit hook (audit.py), the guard over the harness's own tools (guard.py), the
exceptions it catches and goes on from (fallback.py), its own kernel launches (launches.py, with
the autotuning choices a job shares, autotune_share.py) and the dispatcher kernels it registers
(dispatch_watch.py). Facts only: which of them rejects a candidate is decided on the C++ side
(src/eval/checks.h). It imports nothing of the worker's outside itself, and must never let
anything the candidate can reach (its module globals, torch's functions) decide a fact.
"""
