"""The state one evaluation's phases share, declared in one place.

A `Context` is made per job from its options (the C++ side's profile: protocol.job.JobOptions)
and is filled in by the phases in order: references.py (the task, its reference outputs),
trials.py (the candidate's model and its first outputs), measure.py (timing) and trace.py (the
kernel trace).
Every attribute a phase sets is declared in `Context.__init__`, so what a phase may read is what
an earlier phase wrote. The facts are the one output; verdicts are decided by the C++ side.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, Callable, Iterator

import torch

from ..correctness import inputs
from ..correctness.judge import Recorder
from ..integrity.audit import AuditWatch
from ..integrity.fallback import FallbackWatch
from ..integrity.guard import IdentityGuard
from ..integrity.launches import LaunchCounter
from ..protocol.channel import Channel
from ..protocol.facts import Status
from ..protocol.job import JobOptions
from ..task import LoadError, Task
from . import errors


CANDIDATE_MODULE = "adaexplore_candidate"  # The name the candidate is imported as.


class Abort(Exception):
    """Ends the evaluation early; the facts already say why."""


class Session:
    """The child's link to the zygote: GPU lock requests and phase reports."""

    def __init__(self, channel: Channel, facts: dict[str, Any], nonce: str) -> None:
        self.channel = channel
        self.facts = facts
        self.nonce = nonce
        self.exclusive_only = False
        self.current_phase = ""  # The phase running now (phase()).

    def checkpoint(self, facts: dict[str, Any]) -> None:
        """Hands the facts so far to the zygote, which reports them if the evaluation is then
        killed (a correct kernel whose timing runs past the limit keeps its trials)."""
        self.channel.send({"type": "checked", "nonce": self.nonce, "facts": facts})

    @contextlib.contextmanager
    def gpu(self, mode: str) -> Iterator[None]:
        mode = "exclusive" if self.exclusive_only else mode
        self.channel.send({"type": "acquire", "mode": mode})
        while True:
            message = self.channel.read_blocking()
            if message.get("type") == "granted":
                break
        try:
            yield
        finally:
            if torch.cuda.is_initialized():
                # Cached blocks would stay out of reach of the other evaluations on this GPU.
                torch.cuda.empty_cache()
            self.channel.send({"type": "release"})

    def clocks(self) -> None:
        """Asks the zygote to read the GPU's clocks now: the timed runs begin (clocks.py)."""
        self.channel.send({"type": "clocks"})

    def slot(self) -> None:
        """Waits for one of the worker's slots. The task's phases may run ahead of one (CUDA
        start-up, the task, its references), the candidate's may not (zygote.py)."""
        self.channel.send({"type": "ready"})
        while True:
            message = self.channel.read_blocking()
            if message.get("type") == "go":
                return

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        self.channel.send({"type": "phase", "phase": name})
        self.current_phase = name
        with self.part(name):
            yield

    @contextlib.contextmanager
    def part(self, name: str) -> Iterator[None]:
        """Times a part of a phase, named "phase.part" in the facts' phases; the zygote is not
        told (its limits follow whole phases)."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.facts["phases"][name] = round(time.perf_counter() - start, 4)


class Context:
    def __init__(self, options: JobOptions, session: Session, facts: dict[str, Any]) -> None:
        self.o = options
        self.session = session
        self.facts = facts
        device = torch.device(options.device)
        if device.type == "cuda" and device.index is None:
            device = torch.device("cuda", 0)  # The zygote sees exactly one GPU.
        self.device = device
        self.on_gpu = self.device.type == "cuda"
        self.dtype = inputs.dtype_for(options.precision)
        self.gpu_busy_ms = 0.0  # Device time the candidate and reference calls took.
        # references.py
        self.task: Task | None = None
        self.flags: dict[str, Any] = {}  # Precision flags before the candidate was imported.
        self.init_args: list[Any] = []
        self.ref_model: torch.nn.Module | None = None
        self.ref_exact: torch.nn.Module | None = None  # The float64 copy, when there is one.
        self.expert_kernel: Any = None  # The task's expert kernel, ready (measure.py).
        # The reference timed once for the task on this worker (measure.time_reference_once),
        # from the reference cache; None: timed with every candidate.
        self.reference_timing: dict[str, Any] | None = None
        self.seeds: list[int] = []
        self.references: list[dict[str, Any]] = []  # One per trial.
        # The size_sets option's sets: {"facts": SizeSetFacts, "entries": their references}.
        self.size_sets: list[dict[str, Any]] = []
        self.output_bytes = 0
        # runtime_checks.py, set just before the candidate is imported.
        self.audit: AuditWatch | None = None
        self.identities: IdentityGuard | None = None
        self.dynamo_frames = 0
        self.fallbacks: FallbackWatch | None = None
        self.launches: LaunchCounter | None = None
        # trials.py
        self.model_new: torch.nn.Module | None = None
        self.first_output: list[Any] = []  # The first trial's outputs, for determinism.
        self.recorder: Recorder | None = None  # Each trial's outputs, for the judge (judge.py).

    def guard(self, status: Status, fn: Callable[[], Any]) -> Any:
        """Runs fn; on any exception records `status` and its description and aborts."""
        try:
            return fn()
        except LoadError as e:
            self.facts["status"] = status
            self.facts["error"] = errors.unclassified("LoadError", str(e), str(e))
        except BaseException as e:  # noqa: BLE001 - SystemExit from candidate code included.
            self.facts["status"] = status
            self.facts["error"] = errors.describe(e)
        raise Abort()

    def fail(self, status: Status, e: BaseException, **where: Any) -> None:
        """Records that `e` ended the evaluation with `status` (where: the trial or run) and
        aborts."""
        self.facts["status"] = status
        self.facts["error"] = errors.describe(e)
        self.facts["error"].update(where)
        raise Abort()

    def inputs_changed(self, where: int | str) -> None:
        self.facts["status"] = Status.INPUTS_CHANGED
        self.facts["error"] = {
            "type": "InputsChanged", "traceback": "",
            "message": f"the task's inputs changed shape or type after the candidate was imported "
                       f"(at {where})", "triton_compile": False, "cuda_error": None,
            "out_of_memory": False}
        raise Abort()

    def build(self, model_class: type, *, candidate: bool) -> torch.nn.Module:
        """Builds `model_class` with the task's init arguments and seed on the device. The
        reference is cast to the task's precision; a candidate never is: its parameters and
        buffers keep the dtypes it chose (a deliberate float16 weight stays float16), and only
        the tolerance judges its precision."""
        torch.manual_seed(self.o.init_seed)
        if self.o.generate_on == "device":
            with torch.device(self.device):
                model = model_class(*self.init_args)
        else:
            model = model_class(*self.init_args)
        if candidate:
            return model.to(device=self.device)
        return model.to(device=self.device, dtype=self.dtype)

    @contextlib.contextmanager
    def calls(self, during: str) -> Iterator[None]:
        """One call into the candidate's model (`during`: "trial 0", "timed run 3", ...): the
        exceptions its handlers swallow and the kernels it launches are recorded."""
        assert self.fallbacks is not None and self.launches is not None
        self.fallbacks.start(during)
        self.launches.start()
        raised: BaseException | None = None
        try:
            yield
        except BaseException as e:
            raised = e
            raise
        finally:
            self.launches.stop(during, completed=raised is None)
            self.fallbacks.stop(raised)
            self.facts["swallowed"] = self.fallbacks.swallowed
            self.facts["launches"] = self.launches.facts()

    def make_inputs(self, seed: int, distribution: str, on_device: bool = False) -> list[Any]:
        """The task's inputs for `seed`, made where the options say (`on_device`: on the device
        whatever they say, for timed runs' fresh inputs, which no reference made elsewhere is
        compared with)."""
        assert self.task is not None, "inputs before the task was loaded"
        precision = None if self.task.keeps_dtypes else self.o.precision
        return inputs.make_inputs(self.task.get_inputs, seed, distribution, precision,
                                  self.device, "device" if on_device else self.o.generate_on)
