"""What one evaluation found: `Status` (how far it got) and `Facts` (the `facts` of a `result`),
with the nested facts the verdict reads (a trial, the timing...). `check_facts` refuses facts the
schema does not declare, and nested facts of another shape. The C++ side declares the same shapes
in src/workers/facts.h; the golden files in tests/golden/protocol are read by both sides' tests
(fields.py), so the two cannot drift apart. docs/protocol.md describes what each fact means.
"""

from __future__ import annotations

import enum
import typing
from typing import Any, Literal, TypedDict

from .decode import ProtocolError, decode_value


class Status(str, enum.Enum):
    """How far an evaluation got (`facts.status`). The C++ side's FactStatus has the same names."""

    OK = "ok"  # Every trial it was given ran; the trials say whether it was right.
    TASK_ERROR = "task_error"
    IMPORT_ERROR = "import_error"
    INIT_ERROR = "init_error"
    FORWARD_ERROR = "forward_error"
    INPUTS_CHANGED = "inputs_changed"
    TIMEOUT = "timeout"
    MEMORY_LIMIT = "memory_limit"
    CRASH = "crash"
    PROTOCOL_VIOLATION = "protocol_violation"
    CANCELLED = "cancelled"
    HARNESS_ERROR = "harness_error"


# The phases before the candidate is imported: what fails in them is the task's (the C++ side's
# IsTaskPhase names the same).
TASK_PHASES = ("starting", "load_task", "reference")


# The nested facts the verdict reads (src/workers/facts.h declares the same shapes). Every key may be
# absent; `T | None` may also be null (NaN and infinities are sent as null). Keys a shape does not
# declare are allowed: the C++ side keeps them in the raw facts, and no verdict reads them.


class ErrorFacts(TypedDict, total=False):
    """An exception of the task, the candidate or the harness (load.describe)."""

    type: str
    message: str
    traceback: str
    triton_compile: bool
    cuda_error: str | None  # The sticky CUDA error it poisoned the context with.
    out_of_memory: bool


class WorstElement(TypedDict, total=False):
    """The element farthest outside the tolerance (check.compare)."""

    flat_index: int
    out_text: str  # repr of the float, so NaN and Inf survive JSON.
    ref_text: str


class OutputValues(TypedDict, total=False):
    """An output's values against the reference's (check.compare)."""

    passed: bool
    violations: int
    numel: int
    nonfinite_out: int
    max_abs_err: float | None
    max_rel_err: float | None
    ref_max_abs: float | None
    worst: WorstElement | None


class OutputForm(TypedDict, total=False):
    """An output's form (check.structure_facts)."""

    exact_tensor: bool
    zero_stride: bool
    aliases_input: bool
    problems: list[str]


class TrialOutput(TypedDict, total=False):
    form: OutputForm
    values: OutputValues


class Trial(TypedDict, total=False):
    """One correctness trial (trials.check_trials)."""

    index: int
    distribution: str
    integrity: bool
    passed: bool
    problems: list[str]
    outputs: list[TrialOutput]
    inputs_mutated: list[int]


class JudgedTrial(TypedDict, total=False):
    """One trial's outputs as the judge found them (judge.py)."""

    index: int
    passed: bool
    problems: list[str]
    outputs: list[OutputValues]


class CleanReferenceTiming(TypedDict, total=False):
    """The reference's timed runs made before any candidate was imported (measure.py's
    time_reference_once), as the judge read them from the sealed reference file."""

    reference_ms: list[float | None]
    reference_gpu_ms: list[float | None]
    reference_operator_gpu_ms: list[float | None]


class JudgeFacts(TypedDict, total=False):
    """The candidate's outputs against the sealed references, compared in a process that never
    ran candidate code (judge.py). Added by the zygote only."""

    references: str  # sealed; unsealed (too large to store), unreadable, none (no cache).
    trials: list[JudgedTrial]
    stopped: str  # What ended the outputs file early (a record not the harness's).
    error: str  # The judge failed: no verdict on the candidate can be had from it.
    wall_s: float | None
    unconfined: list[str]  # The protections the judge could not take (judge.confine).
    reference_timing: CleanReferenceTiming | None  # From the sealed file, when it holds one.
    determinism: Determinism | None  # The rerun of trial 0 against its first run.


class CandidateInterface(TypedDict, total=False):
    """How a FlashInfer candidate is called (kinds/flashinfer.py): its entry point's function and
    whether it takes its outputs as arguments (what a Solution's spec says of it)."""

    entry_point: str
    destination_passing_style: bool


class Determinism(TypedDict, total=False):
    passed: bool
    special_mismatch: bool
    max_abs_diff: float | None


class ReferenceOutput(TypedDict, total=False):
    dtype: str


class ReferenceFacts(TypedDict, total=False):
    outputs: list[ReferenceOutput]
    self_error: list[float | None]


class Expert(TypedDict, total=False):
    """The task's expert kernel, ready (measure.py)."""

    name: str | None
    agrees: bool
    relative_error: float | None


class ResizeFacts(TypedDict, total=False):
    """Another size set (shrink.resize_task): each size changed, as [from, to], the names the
    task has no integer of, and the module-level values computed again from the new sizes."""

    applies: bool
    changed: dict[str, list[int]]
    missing: list[str]
    derived: list[str]


class SizeSetFacts(TypedDict, total=False):
    """One of the size_sets option's sets, checked in the candidate's own job: how the task was
    resized, why its reference could not be made there (reference_error; then nothing ran at
    it), whether the candidate's trials ran at it (only once its own passed), those trials (the
    judge's indices follow the task's own trials), and what ended them when the candidate
    raised at this set (error)."""

    name: str
    resize: ResizeFacts
    reference_error: str
    ran: bool
    trials: list[Trial]
    error: ErrorFacts


class SanitizerRun(TypedDict, total=False):
    """One compute-sanitizer tool's run of the candidate (sanitizer.py): how it ended (clean,
    errors, target_failed, tool_failed, timed_out, signal, missing, unusable: the harness's own
    target failed under it), the error count its
    summary gives, its first error records and the output's tail."""

    tool: str
    ended: Literal["clean", "errors", "target_failed", "tool_failed", "timed_out", "signal",
                   "missing", "unusable"]
    exit_code: int | None
    signal: int | None
    wall_s: float
    errors: int | None
    records: list[str]
    tail: str


class ShrinkFacts(TypedDict, total=False):
    """A smoke test's smaller task (shrink.py): each size changed, as [from, to], and the
    module-level values computed again from the new sizes."""

    factor: int
    applies: bool
    changed: dict[str, list[int]]
    derived: list[str]


class ProfiledKernel(TypedDict, total=False):
    """One kernel of a profiled call: a hardware profiler's figures as fractions of peak."""

    name: str
    duration_us: float
    dram_fraction: float | None
    sm_fraction: float | None
    achieved_occupancy: float | None
    theoretical_occupancy: float | None  # The launch's resources' bound (the C++ estimate's).
    occupancy_limiter: str
    l2_hit_rate: float | None
    own: bool


class ProfileFacts(TypedDict, total=False):
    """A correct candidate's call under a hardware profiler, apart from its timed runs; or why
    there is none (docs/profiling.md)."""

    tool: str
    kernels: list[ProfiledKernel]
    call_us: float | None
    unavailable: str


class GpuReading(TypedDict, total=False):
    """What NVML said of the GPU at one moment (clocks.py)."""

    sm_mhz: float | None
    mem_mhz: float | None
    temperature_c: float | None
    pstate: int | None
    throttle: list[str] | None  # Clock event reasons: "sw_thermal", "hw_slowdown", ...


class GpuState(TypedDict, total=False):
    before: GpuReading | None
    after: GpuReading | None


class GpuSetup(TypedDict, total=False):
    """The test's setup calls during the timed runs (gpu_series.GpuSeries): whether torch's
    callables stayed as they were, and each side's setup kernels (names, launches)."""

    intact: bool
    candidate_kernels: dict[str, int]
    reference_kernels: dict[str, int]


class RevalidationFailure(TypedDict, total=False):
    """The first timed run whose output did not match the reference's (measure.py)."""

    run: int  # Counted from 0 after the warm-up.
    # "values", "number of outputs changed", "output form changed"; absent: the outputs matched
    # and the run changed its inputs.
    problem: str | None
    violations: int | None  # With "values": the elements outside the tolerance.


class Timing(TypedDict, total=False):
    """Samples in milliseconds, and what revalidating the timed runs found (measure.py)."""

    meaningful: bool
    candidate_ms: list[float | None]
    candidate_wall_ms: list[float | None]
    candidate_host_ms: list[float | None]  # The host's time in each call (timing.Timed.host_ms).
    # The device-wide synchronise once the end event was reached (timing.Timed.tail_ms).
    candidate_tail_ms: list[float | None]
    reference_tail_ms: list[float | None]
    # The head start's GPU time over its plan, each run (timing.Timed.head_over_ms).
    candidate_head_over_ms: list[float | None]
    reference_head_over_ms: list[float | None]
    reference_ms: list[float | None]
    compiled_reference_ms: list[float | None]
    expert_ms: list[float | None]
    revalidated: int
    revalidation_failures: int
    inputs_mutated_runs: int
    revalidated_relative_error: float | None
    first_revalidation_failure: RevalidationFailure | None
    gpu_state: GpuState | None  # Before the first timed run and after the last (clocks.py).
    host_late_runs: int  # Runs whose host outlasted the head start (head_start.py), GPU only.
    host_late_dropped: int  # Of them, those not kept.
    head_start_us: float | None  # The head start at the end.
    # The GPU timeline's figures (gpu_timeline.py, gpu_series.GpuSeries): each kept run's GPU time,
    # from its first GPU work to its last (None: the run launched none), per series; the GPU
    # time and count of work launched outside every timed call by another thread; or why the
    # timeline gave none.
    candidate_gpu_ms: list[float | None]
    reference_gpu_ms: list[float | None]
    compiled_reference_gpu_ms: list[float | None]
    expert_gpu_ms: list[float | None]
    gpu_outside_us: float | None
    gpu_outside_records: int
    gpu_timeline_lost: str | None
    # Where the task's call makes its own inputs (setup_marks.py): each kept run's GPU time of
    # the operator's work, without the test's setup calls; and those calls (GpuSetup).
    candidate_operator_gpu_ms: list[float | None]
    reference_operator_gpu_ms: list[float | None]
    gpu_setup: GpuSetup | None


class TracedKernel(TypedDict, total=False):
    name: str
    kind: str  # own, pytorch or neutral (trace.kind_of).
    us: float  # Device microseconds over its launches.
    launches: int
    # Its longest launch's shape (trace.launch_shape), where CUPTI gave it.
    registers: int | None  # Per thread.
    shared_bytes: int | None  # Per block.
    block_threads: int | None
    grid_blocks: int | None


class KernelKinds(TypedDict):
    """Kernel microseconds per kind (trace.kind_of)."""

    own: float
    pytorch: float
    neutral: float


class SetupRanges(TypedDict):
    opened: int  # By the harness's marks, during the traced call.
    traced: int  # Found in the trace under the marks' name.
    intact: bool  # torch.Tensor's attributes as at load, all through the call.


class KernelTrace(TypedDict, total=False):
    """One call under the profiler (trace.py)."""

    kernels: list[TracedKernel]
    own_us: float | None
    pytorch_us: float | None
    # Device microseconds of the call's kernels, copies and fills that ran outside its window on
    # the caller's stream (trace.py); None: the trace found no window.
    escaped_us: float | None
    escaped_kernels: int
    busy_us: float | None  # The call's kernel time: its work's union inside the window.
    # Where the task's call makes its own inputs (setup_marks.py): the kernel time of the work
    # not launched in its setup ranges, and how many ranges were opened and traced.
    operator_us: float | None
    setup_ranges: SetupRanges | None
    setup_kernel_us: KernelKinds | None  # Of the kernels launched in setup ranges.
    setup_kernels: dict[str, int]  # Their names, and launches of each.


class Autotune(TypedDict, total=False):
    kernel: str
    configs: int
    chosen: str
    how: str


class Launches(TypedDict, total=False):
    """The candidate's own kernel launches per call (launches.py)."""

    complete: bool
    calls: int
    calls_without_own: int
    first_without_own: str | None
    autotune: list[Autotune]


class Finding(TypedDict, total=False):
    """A source rule broken, statically (integrity.py) or at run time (audit.py)."""

    rule: str
    line: int
    text: str


class StaticFacts(TypedDict, total=False):
    findings: list[Finding]


class Swallowed(TypedDict, total=False):
    """An exception the candidate's handler caught and went on from (fallback.py)."""

    line: int
    type: str
    message: str
    during: str
    count: int


class Roofline(TypedDict, total=False):
    io_bytes: float | None  # Inputs read once plus outputs written once.
    flops: float | None  # The reference's matrix-unit flops (torch's flop counter).


class Facts(TypedDict, total=False):
    """What one evaluation found: the `facts` of a `result`. Only `status` is always present."""

    status: Status
    phase: str  # The phase a killed or crashed child was in.
    message: str  # What a protocol violation was.
    exit_code: int | None
    signal: int | None
    exit: dict
    memory_limit_mb: float
    limit_s: float  # The time limit a timeout hit (the candidate's own time, waits excluded).
    error: ErrorFacts
    phases: dict  # Seconds per phase; parts of one as "phase.part".
    notes: list
    trials: list[Trial]
    judge: JudgeFacts
    interface: CandidateInterface
    determinism: Determinism
    determinism_passed: bool
    reference: ReferenceFacts
    device_name: str
    flags_changed_by_import: list[str]
    patched: list[str]
    dispatcher_overrides: list[str]
    runtime_findings: list[Finding]
    threads_left_running: list[str]
    os_threads_left_running: int
    threads_started: int
    null_kernels: dict[str, bool]
    roofline: Roofline
    expert: Expert
    shrink: ShrinkFacts
    task_sizes: dict[str, int]  # A KernelBench task's module-level integers as loaded.
    resize: ResizeFacts
    size_sets: list[SizeSetFacts]  # The size_sets option's sets (trials.check_size_sets).
    sanitizer: list[SanitizerRun]  # compute-sanitizer's runs (the `sanitize` option).
    profile: ProfileFacts
    poisoned_free_blocks: int
    timing: Timing
    kernel_trace: KernelTrace
    reference_trace: KernelTrace  # The reference's call, traced the same way (its busy_us).
    swallowed: list[Swallowed]
    launches: Launches
    reference_cache: str  # hit, stored, not_stored, changed (refcache.py); absent: no key.
    gpu_busy_ms: float
    static: StaticFacts
    wall_s: float
    waited_s: float  # Of wall_s, not counted against the limit: the task's phases, GPU lock waits.
    child_pid: int
    peak_rss_mb: float
    stdout: str
    stderr: str
    stray_lines: int
    # The zygote's sweeps of the child's threads from outside: sweeps, threads_max, unconfined.
    threads_checked: dict
    containment: dict  # The protections in force (containment.py): read-only file system etc.


def check_facts(facts: Any) -> None:
    """Raises ProtocolError unless `facts` holds only declared facts of the declared types."""
    if not isinstance(facts, dict):
        raise ProtocolError(f"facts must be an object, not {type(facts).__name__}")
    if "status" not in facts:
        raise ProtocolError("facts without a status")
    hints = typing.get_type_hints(Facts)
    for key, value in facts.items():
        if key not in hints:
            raise ProtocolError(f"facts.{key} is not in the schema (python/.../protocol/facts.py)")
        decode_value(hints[key], value, f"facts.{key}")
