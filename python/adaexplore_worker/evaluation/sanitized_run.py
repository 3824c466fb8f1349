"""The process compute-sanitizer starts (sanitizer.py): the candidate's model built as the
evaluation builds it and called once on the task's inputs for the job's seed, then the device
synchronised. Nothing is compared or timed, and no reference runs: every kernel the tool sees is
the candidate's, or torch's making its inputs.

    python -m adaexplore_worker.evaluation.sanitized_run --job J --task T --candidate C
    python -m adaexplore_worker.evaluation.sanitized_run --probe

Exits 0 when the call returned, sanitizer.TARGET_FAILED (after printing why) when the task, the
candidate's import, its construction or its call raised. `--probe` is the harness's own target,
run under the tool before the candidate's: it starts the device and runs one of torch's kernels,
loading neither task nor candidate, so a tool that cannot run CUDA in this sandbox is told from a
kernel that breaks its run.

First of all, the process narrows its writes to its own /proc folder (sandbox.own_proc_only): a
sanitizer job's sandbox lets the namespace's whole /proc be written, since this process is not
the evaluator and CUDA's start writes its own folder; the candidate's code must not reach the
tool's or the evaluator's. Where that fails, nothing of the candidate runs (TARGET_FAILED, which
the probe turns into an unusable tool).
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from typing import Any

from .sanitizer import TARGET_FAILED


class _NoChannel:
    """No zygote here: nothing waits for a lock or a slot (the evaluation holds them)."""

    def send(self, message: dict[str, Any]) -> None:
        self.last = message

    def read_blocking(self) -> dict[str, Any]:
        return {"type": "go" if self.last.get("type") == "ready" else "granted"}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="adaexplore_worker.evaluation.sanitized_run")
    parser.add_argument("--probe", action="store_true")
    parser.add_argument("--job")
    parser.add_argument("--task")
    parser.add_argument("--candidate")
    args = parser.parse_args(argv)
    if not args.probe and not (args.job and args.task and args.candidate):
        parser.error("--job, --task and --candidate, or --probe")
    try:
        from ..sandbox import sandbox
        sandbox.own_proc_only()
        if args.probe:
            probe()
        else:
            call(args.job, args.task, args.candidate)
    except BaseException:  # noqa: BLE001 - whatever ended the call, said on the tool's output.
        sys.stderr.write("adaexplore: the sanitized call did not complete:\n"
                         + traceback.format_exc(limit=-8))
        sys.stderr.flush()
        return TARGET_FAILED
    return 0


def probe() -> None:
    import torch

    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.ones(64, device=device)
    assert float((x * 2).sum()) == 128.0
    if device == "cuda":
        torch.cuda.synchronize()


def call(job_file: str, task_path: str, candidate_path: str) -> None:
    import torch

    from ..protocol.job import Job
    from . import load, references, shrink
    from .context import CANDIDATE_MODULE, Context, Session

    with open(job_file, encoding="utf-8") as f:
        job = Job.from_json(json.load(f))
    facts: dict[str, Any] = {"phases": {}, "notes": []}
    ctx = Context(job.options, Session(_NoChannel(), facts, job.nonce), facts)  # type: ignore
    ctx.task = load.load_task(task_path, job.task, ctx.device.type)
    if job.options.shrink > 1:  # The sizes the kernel was evaluated at.
        shrink.shrink_task(ctx.task, job.options.shrink)
    if job.options.sizes:
        shrink.resize_task(ctx.task, job.options.sizes)
    references.set_up_torch(ctx)
    ctx.init_args = references.make_init_args(ctx)
    x = ctx.make_inputs(job.options.seed, "task")
    model_class = load.load_candidate(load.candidate_file(candidate_path, ctx.task),
                                      CANDIDATE_MODULE, lambda _: None, ctx.task)
    model = ctx.build(model_class, candidate=True)
    with torch.no_grad():
        model(*x)
    if ctx.on_gpu:
        torch.cuda.synchronize(ctx.device)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
