"""The worker protocol: its typed schema.

Schema. Every message the C++ side sends and every fact the worker reports is declared here once:
`Job` and `JobOptions` (what one evaluation is told), `Status` (how far it got) and `Facts` (what
it found). The worker keeps no defaults of its own: `Job.from_json` refuses a missing, unknown or
mistyped key with a ProtocolError naming it, and `check_facts` refuses facts the schema does not
declare, and nested facts the verdict reads (a trial, the timing...) of another shape. The C++
side declares the same schema in src/workers/protocol.h and src/workers/facts.h; the golden files in
tests/golden/protocol are read by both sides' tests, so the two cannot drift apart. docs/protocol.md
describes what each field means. Bump PROTOCOL_VERSION (and kProtocolVersion) when the schema
changes.

The transport (JSON lines over a file descriptor) is channel.py.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from typing import Any, Literal, TypedDict, Union


class ProtocolError(Exception):
    """A message that does not follow the schema: the sender's bug, never a candidate's fault."""


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

Precision = Literal["fp32", "bf16", "fp16"]


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

    @classmethod
    def from_json(cls, data: Any) -> JobOptions:
        return _decode(cls, data, "options")


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
        return _decode(cls, data, "job")


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


class ShrinkFacts(TypedDict, total=False):
    """A smoke test's smaller task (shrink.py): each size changed, as [from, to]."""

    factor: int
    applies: bool
    changed: dict[str, list[int]]


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
    """The test's setup calls during the timed runs (measure.GpuSeries): whether torch's
    callables stayed as they were, and each side's setup kernels (names, launches)."""

    intact: bool
    candidate_kernels: dict[str, int]
    reference_kernels: dict[str, int]


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
    gpu_state: GpuState | None  # Before the first timed run and after the last (clocks.py).
    host_late_runs: int  # Runs whose host outlasted the head start (head_start.py), GPU only.
    host_late_dropped: int  # Of them, those not kept.
    head_start_us: float | None  # The head start at the end.
    # The GPU timeline's figures (gpu_timeline.py, measure.GpuSeries): each kept run's GPU time,
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
            raise ProtocolError(f"facts.{key} is not in the schema (python/.../protocol.py)")
        _decode_value(hints[key], value, f"facts.{key}")


def schema_fields() -> dict[str, dict[str, str]]:
    """Every declared field by message and its JSON type: what tests/golden/protocol/fields.json
    holds, for the C++ side to compare with its own declaration."""
    def kinds(hints: dict[str, Any]) -> dict[str, str]:
        return {name: _json_kind(hint) for name, hint in hints.items()}
    return {"options": kinds(typing.get_type_hints(JobOptions)),
            "facts": kinds(typing.get_type_hints(Facts)),
            "nested": _nested_fields(Facts, "facts", {}),
            "status": {s.value: "status" for s in Status}}


def _nested_fields(shape: Any, path: str, groups: dict[str, dict[str, str]]
                   ) -> dict[str, dict[str, str]]:
    """The fields of the TypedDicts `shape` holds, by path ("facts.trials[]"), the way the C++
    side's NestedFactFields() gives them."""
    for name, hint in typing.get_type_hints(shape).items():
        inner, many = _shape_in(hint)
        if inner is not None:
            where = f"{path}.{name}{'[]' if many else ''}"
            groups[where] = {n: _json_kind(h) for n, h in typing.get_type_hints(inner).items()}
            _nested_fields(inner, where, groups)
    return groups


def _shape_in(hint: Any) -> tuple[Any, bool]:
    """The TypedDict a field holds (itself, in a list, or with None), and whether in a list."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        found = [_shape_in(a) for a in args if a is not type(None)]
        return found[0] if len(found) == 1 else (None, False)
    if origin is list:
        return _shape_in(args[0])[0], True
    return (hint, False) if typing.is_typeddict(hint) else (None, False)


def _json_kind(hint: Any) -> str:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        return "|".join(sorted(_json_kind(a) for a in args))
    if hint is type(None):
        return "null"
    if hint is bool:
        return "boolean"
    if hint is int:
        return "integer"
    if hint is float:
        return "number"
    if isinstance(hint, type) and issubclass(hint, Status):
        return "status"
    if origin is Literal:  # The C++ side's enums: their names, in declaration order.
        return "one of " + ", ".join(args)
    if hint is str:
        return "string"
    if hint is list or origin is list:
        return "array"
    return "object"


def _decode(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise ProtocolError(f"{where} must be an object, not {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    unknown = sorted(set(data) - set(hints))
    if unknown:
        raise ProtocolError(f"{where} has unknown key(s) {unknown}: the sender speaks another "
                            f"schema")
    missing = [name for name in hints if name not in data]
    if missing:
        raise ProtocolError(f"{where} lacks {missing}: the worker has no defaults of its own")
    return cls(**{name: _decode_value(hint, data[name], f"{where}.{name}")
                  for name, hint in hints.items()})


def _decode_value(hint: Any, value: Any, where: str) -> Any:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        for arg in args:
            try:
                return _decode_value(arg, value, where)
            except ProtocolError:
                continue
        raise ProtocolError(f"{where} = {value!r:.80} is none of {hint}")
    if origin is Literal:
        if value not in args:
            raise ProtocolError(f"{where} = {value!r:.80} is not one of {list(args)}")
        return value
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(value)
        except ValueError:
            raise ProtocolError(f"{where} = {value!r:.80} is not one of "
                                f"{[m.value for m in hint]}") from None
    if dataclasses.is_dataclass(hint):
        return _decode(hint, value, where)
    if typing.is_typeddict(hint):  # A nested fact: declared keys checked, others ride along.
        if not isinstance(value, dict):
            raise ProtocolError(f"{where} must be an object, not {type(value).__name__}")
        hints = typing.get_type_hints(hint)
        for key, key_hint in hints.items():
            if key in value:
                _decode_value(key_hint, value[key], f"{where}.{key}")
        return value
    if origin is dict:
        if not isinstance(value, dict):
            raise ProtocolError(f"{where} must be an object")
        for key, item in value.items():
            _decode_value(args[1], item, f"{where}.{key}")
        return value
    if origin is list:
        if not isinstance(value, list):
            raise ProtocolError(f"{where} must be a list")
        return [_decode_value(args[0], v, f"{where}[{i}]") for i, v in enumerate(value)]
    expected: dict[Any, tuple[type, ...]] = {
        type(None): (type(None),), bool: (bool,), int: (int,), float: (int, float), str: (str,),
        list: (list,), dict: (dict,)}
    boolean_as_number = hint in (int, float) and isinstance(value, bool)
    if not isinstance(value, expected[hint]) or boolean_as_number:
        raise ProtocolError(f"{where} = {value!r:.80} is not of type "
                            f"{getattr(hint, '__name__', hint)}")
    return float(value) if hint is float else value
