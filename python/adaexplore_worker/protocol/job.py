"""What one evaluation is told: the `eval` message (`Job`) and its options (`JobOptions`, the C++
side's profile as the worker receives it). `Job.from_json` refuses a missing, unknown or mistyped
key with a ProtocolError naming it (decode.py): the worker keeps no defaults of its own. The C++
side declares the same fields in src/workers/protocol.h; docs/protocol.md describes what each
means.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from .decode import decode

Precision = Literal["fp32", "bf16", "fp16"]


@dataclasses.dataclass(frozen=True)
class SizeSet:
    """One of a KernelBench task's other size sets (size_sets): the module-level integers it
    sets, and how many of the profile's trials (the first ones, their seeds) run at it."""

    name: str
    sizes: dict[str, int]
    trials: int


@dataclasses.dataclass(frozen=True)
class JobOptions:
    """How to evaluate: the C++ profile (src/eval/profile.h) as the worker receives it."""

    device: Literal["cuda", "cpu"]
    baseline: bool  # Time the task's own Model only; no candidate.
    exclusive: bool  # Hold the GPU alone for every phase (a retry after running out of memory).
    precision: Precision  # Dtype of weights and float inputs.
    allow_tf32: bool
    trials: int
    seed_mode: Literal["derived", "paper"]
    seed: int
    init_seed: int  # torch.manual_seed before building Model and ModelNew.
    distributions: list[Literal["task", "normal", "uniform_pm1", "scaled", "negative", "heavy"]]
    # One more trial per entry, after the profile's: inputs beyond the task's own (integrity).
    integrity_distributions: list[Literal["normal", "uniform_pm1", "scaled", "negative", "heavy"]]
    reference_precision: Literal["fp64", "task"]
    reference_gpu_fraction: float  # Share of free device memory references may keep there.
    fp64_budget_s: float  # The float64 reference's time over all trials, judged from the first.
    criterion: Literal["scaled", "allclose"]
    atol: float
    rtol: float
    determinism_check: bool
    poison_memory: bool
    stop_at_first_failure: bool
    warmup_runs: int
    timed_runs: int  # At most; the fixed count when timing_precision and timing_budget_ms are 0.
    min_timed_runs: int  # At least, when the timing may stop early (stopping.py).
    timing_budget_ms: float  # Stop once the timed runs took this long in all; 0: no budget.
    timing_precision: float  # Stop once every median is known to this share; 0: never.
    # Not interleaved: the reference timed once per task and worker, reused while a check of
    # min_timed_runs runs finds its median within this share (measure.py); 0: timed every time.
    reference_reuse_drift: float
    fresh_inputs_per_run: bool
    interleave_reference: bool
    revalidate_timed: bool
    revalidate_atol: float
    revalidate_rtol: float
    l2_flush: bool
    # The head start's cap (head_start.py): above 0, a run whose host outlasted the head start is
    # not kept while its spin can still grow; 0: the flush alone, every run kept.
    head_start_max_us: float
    # Also time the reference in its task phases, before the candidate is imported, into the
    # sealed reference file: the judge reports it (judge.py), and the C++ side compares it with
    # the reference's timed runs beside the candidate.
    clean_reference_timing: bool
    compile_baseline: bool
    expert_baseline: bool  # Also time the task's expert kernel, where it has one (Task.expert).
    generate_on: Literal["device", "cpu"]
    measure: bool
    time_only_if_correct: bool
    null_selftest: bool
    kernel_trace: bool
    # Every timed run also a window on the GPU's own timeline (CUPTI's activity records,
    # gpu_timeline.py): each series' GPU times beside its events' (GPU only).
    gpu_timeline: bool
    reject_rules: list[str]  # Source rules that reject: a candidate breaking one is not imported.
    shrink: int  # >1: a KernelBench task's sizes divided by this (shrink.py); a smoke test.
    # A KernelBench task's module-level sizes set to these before its inputs and weights are made
    # (shrink.resize_task): one of the other size sets a kernel is checked at. Empty: its own.
    sizes: dict[str, int]
    # Other size sets checked in this job (shrink.resize_task each): their references are made in
    # the reference phase, before the candidate is imported, and sealed with the task's own for
    # the judge; once the candidate's own trials and rerun passed, it runs each set's trials
    # last (trials.check_size_sets). Empty: none.
    size_sets: list[SizeSet]
    # compute-sanitizer's tools to run the candidate under, in turn, instead of evaluating it
    # (sanitizer.py); each run may take sanitize_timeout_s. Empty: an evaluation.
    sanitize: list[Literal["memcheck", "racecheck", "synccheck", "initcheck"]]
    sanitize_timeout_s: float

    @classmethod
    def from_json(cls, data: Any) -> JobOptions:
        return decode(cls, data, "options")


@dataclasses.dataclass(frozen=True)
class SourceFile:
    filename: str
    source: str


@dataclasses.dataclass(frozen=True)
class TaskFile:
    """The task of a job: its file, the format it is in, and for a FlashInfer-Trace definition
    the workload to evaluate (an object of the workload file) and the folder its blob paths are
    relative to."""
    filename: str
    source: str
    kind: str  # A module of kinds/ (kinds.lookup refuses any other by name).
    workload: dict | None
    data_root: str


@dataclasses.dataclass(frozen=True)
class Job:
    """One `eval` message."""

    type: Literal["eval"]
    id: str
    nonce: str  # The child's result must carry it (see docs/protocol.md).
    task: TaskFile
    candidate: SourceFile
    options: JobOptions
    timeout_s: float
    memory_limit_mb: float  # 0: no limit.
    reference_key: str  # Jobs with the same key share reference outputs (refcache.py); "": none.

    @classmethod
    def from_json(cls, data: Any) -> Job:
        return decode(cls, data, "job")
