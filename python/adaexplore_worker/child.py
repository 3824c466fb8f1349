"""One evaluation, in a freshly forked child: the only process that initialises CUDA.

Order matters for trust: the task is loaded, and every trial's inputs and reference outputs are
made, before the candidate is imported. The candidate then runs on fresh copies of the same inputs;
its outputs are checked for form and value, the inputs for mutation, and the first trial is run
twice for determinism. Timing takes the device exclusively (the zygote arbitrates) and interleaves
the reference with the candidate on fresh inputs every run, re-checking every timed output.

The result is a dict of facts. Verdicts are decided by the C++ side.
"""

from __future__ import annotations

import contextlib
import copy
import os
import random
import sys
import threading
import time
from typing import Any, Callable, Iterator

import torch

from . import check, inputs, load, trace
from .audit import AuditWatch
from .guard import IdentityGuard, clear_global_hooks
from .protocol import Channel, Job, JobOptions, Status, finite_or_none
from .timing import Timer

CANDIDATE_MODULE = "adaexplore_candidate"
POISON_BYTE = 0xFF  # NaN in every float format, -1 in signed integers.
MAX_POISON_BLOCKS = 4096  # Free blocks poisoned one by one; more is an allocator in pieces.


class Abort(Exception):
    """Ends the evaluation early; the facts already say why."""


class Session:
    """The child's link to the zygote: GPU lock requests and phase reports."""

    def __init__(self, channel: Channel, facts: dict[str, Any]) -> None:
        self.channel = channel
        self.facts = facts
        self.exclusive_only = False

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

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        self.channel.send({"type": "phase", "phase": name})
        start = time.perf_counter()
        try:
            yield
        finally:
            self.facts["phases"][name] = round(time.perf_counter() - start, 4)


def evaluate(job: Job, channel: Channel, task_path: str, candidate_path: str) -> dict[str, Any]:
    facts: dict[str, Any] = {"status": Status.OK, "phases": {}, "notes": [], "trials": []}
    session = Session(channel, facts)
    session.exclusive_only = job.options.exclusive
    try:
        evaluation = Evaluation(job.options, session, facts)
        if job.options.baseline:
            evaluation.run_baseline(task_path)
        else:
            evaluation.run(task_path, candidate_path)
    except Abort:
        pass
    except BaseException as e:  # noqa: BLE001 - everything becomes a fact, nothing escapes.
        described = load.describe(e)
        if described["cuda_error"] or described["out_of_memory"]:
            facts["status"] = Status.FORWARD_ERROR
        elif isinstance(e, (SystemExit, KeyboardInterrupt)):
            facts["status"] = Status.FORWARD_ERROR
        else:
            facts["status"] = Status.HARNESS_ERROR
        facts["error"] = described
    return facts


class Evaluation:
    def __init__(self, options: JobOptions, session: Session, facts: dict[str, Any]) -> None:
        self.o = options
        self.session = session
        self.facts = facts
        device = torch.device(options.device)
        if device.type == "cuda" and device.index is None:
            device = torch.device("cuda", 0)  # The zygote sees exactly one GPU.
        self.device = device
        self.on_gpu = self.device.type == "cuda"
        self.precision = options.precision
        self.dtype = inputs.dtype_for(self.precision)
        self.generate_on = options.generate_on
        self.gpu_busy_ms = 0.0

    # -- the steps -------------------------------------------------------------------------------

    def run(self, task_path: str, candidate_path: str) -> None:
        with self.session.phase("load_task"):
            self.task = self._guard(Status.TASK_ERROR, lambda: load.load_task(task_path))
        with self.session.gpu("shared"), self.session.phase("reference"):
            self._set_up_torch()
            self._make_references()
            if self.o.null_selftest:
                self.facts["null_kernels"] = self._null_selftest()
            self.facts["roofline"] = self._roofline()
        threads_before = _thread_count()
        self.audit = AuditWatch(candidate_path)  # Wraps thread starters: before the snapshot.
        self.identities = IdentityGuard()
        self.dynamo_frames = _dynamo_frames()
        with self.session.phase("import"):
            model_new_class = self._guard(
                Status.IMPORT_ERROR, lambda: load.load_candidate(candidate_path, CANDIDATE_MODULE))
        self._check_identities()
        self._check_flags_after_import()
        self._check_inheritance(model_new_class)
        with self.session.gpu("shared"), self.session.phase("check"):
            self.model_new = self._guard(Status.INIT_ERROR, lambda: self._build(model_new_class))
            self._check_identities()
            self._check_trials()
            self._check_determinism()
        self.facts["threads_started"] = max(0, _thread_count() - threads_before)
        all_passed = all(t.get("passed") for t in self.facts["trials"])
        self.facts["determinism_passed"] = self.facts.get("determinism", {}).get("passed", True)
        if self.o.measure and (all_passed or not self.o.time_only_if_correct):
            with self.session.gpu("exclusive"), self.session.phase("timing"):
                self._time()
        # After timing: the profiler (CUPTI) must not be loaded while anything is timed.
        with self.session.gpu("shared"), self.session.phase("trace"):
            self._trace_kernels(candidate_path)
        self.facts["gpu_busy_ms"] = round(self.gpu_busy_ms, 3)

    def run_baseline(self, task_path: str) -> None:
        """Times the task's own Model, eager and (with compile_baseline) under torch.compile, with
        the profile's timing settings: the per-task baseline the C++ side caches per GPU model,
        software and profile. No candidate is involved. torch.compile's compilation runs under
        the shared lock, the timed runs under the exclusive one."""
        with self.session.phase("load_task"):
            self.task = self._guard(Status.TASK_ERROR, lambda: load.load_task(task_path))
        o = self.o
        warmup, runs = o.warmup_runs, o.timed_runs
        fresh = o.fresh_inputs_per_run
        rng = random.Random(o.seed * 7919 + 1)
        compiled = None
        with self.session.gpu("shared"), self.session.phase("reference"):
            self._set_up_torch()
            self.init_args = self._guard(Status.TASK_ERROR, self._make_init_args)
            self.ref_model = self._guard(Status.TASK_ERROR,
                                         lambda: self._build(self.task.model_class))
            fixed = None if fresh else self._guard(
                Status.TASK_ERROR, lambda: self._make_inputs(o.seed, "task"))
            if o.compile_baseline:
                compiled = self._compile_reference(rng)
        with self.session.gpu("exclusive"), self.session.phase("timing"):
            timer = Timer(self.device, o.l2_flush)

            def eager() -> list[float]:
                out: list[float] = []
                with torch.no_grad():
                    for i in range(warmup + runs):
                        x = self._make_inputs(rng.getrandbits(32), "task") if fresh else fixed
                        _, ms, _ = timer.time(self.ref_model, x)
                        self.gpu_busy_ms += ms
                        if i >= warmup:
                            out.append(round(ms, 6))
                return out

            timing: dict[str, Any] = {
                "warmup_runs": warmup, "timed_runs": runs, "fresh_inputs": fresh,
                "clock": "cuda_event" if self.on_gpu else "perf_counter",
                "meaningful": self.on_gpu, "reference_ms": self._guard(Status.TASK_ERROR, eager)}
            if compiled is not None:
                timing["compiled_reference_ms"] = self._time_compiled(
                    timer, warmup, runs, rng, compiled)
        self.facts["timing"] = timing
        self.facts["gpu_busy_ms"] = round(self.gpu_busy_ms, 3)

    def _guard(self, status: Status, fn: Callable[[], Any]) -> Any:
        """Runs fn; on any exception records `status` and its description and aborts."""
        try:
            return fn()
        except load.LoadError as e:
            self.facts["status"] = status
            self.facts["error"] = {"type": "LoadError", "message": str(e), "traceback": str(e),
                                   "triton_compile": False, "cuda_error": None,
                                   "out_of_memory": False}
        except BaseException as e:  # noqa: BLE001 - SystemExit from candidate code included.
            self.facts["status"] = status
            self.facts["error"] = load.describe(e)
        raise Abort()

    def _set_up_torch(self) -> None:
        allow_tf32 = self.o.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = allow_tf32
        torch.backends.cudnn.allow_tf32 = allow_tf32
        torch.set_float32_matmul_precision("high" if allow_tf32 else "highest")
        if self.on_gpu:
            torch.cuda.set_device(self.device)
            torch.cuda.init()
            self.facts["device_name"] = torch.cuda.get_device_name(self.device)
        else:
            self.facts["device_name"] = "cpu"
        self.flags = _precision_flags()

    def _build(self, model_class: type) -> torch.nn.Module:
        torch.manual_seed(self.o.init_seed)
        if self.generate_on == "device":
            with torch.device(self.device):
                model = model_class(*self.init_args)
        else:
            model = model_class(*self.init_args)
        return model.to(device=self.device, dtype=self.dtype)

    def _make_inputs(self, seed: int, distribution: str) -> list[Any]:
        return inputs.make_inputs(self.task.get_inputs, seed, distribution, self.precision,
                                  self.device, self.generate_on)

    def _make_init_args(self) -> list[Any]:
        torch.manual_seed(self.o.init_seed)
        raw = self.task.get_init_inputs()
        if not isinstance(raw, (list, tuple)):
            raise load.LoadError(f"get_init_inputs() returned {type(raw).__name__}, not a list")
        return [x.to(self.device, self.dtype if x.is_floating_point() else x.dtype)
                if isinstance(x, torch.Tensor) else x for x in raw]

    def _make_references(self) -> None:
        """Builds the reference model and computes every trial's reference output."""
        self.init_args = self._guard(Status.TASK_ERROR, self._make_init_args)
        self.ref_model = self._guard(Status.TASK_ERROR,
                                         lambda: self._build(self.task.model_class))
        self.ref_exact = None
        if self.o.reference_precision == "fp64" and self.dtype != torch.float64:
            try:
                self.ref_exact = copy.deepcopy(self.ref_model).to(torch.float64)
            except Exception as e:  # noqa: BLE001
                self.facts["notes"].append(f"float64 reference unavailable ({e}); "
                                           "using the task precision")
        count = self.o.trials
        self.seeds = inputs.trial_seeds(self.o.seed_mode, self.o.seed, count)
        distributions = list(self.o.distributions) or ["task"]
        self.references: list[dict[str, Any]] = []
        budget = self._reference_budget_bytes()
        stored = 0
        for i, seed in enumerate(self.seeds):
            wanted = distributions[i % len(distributions)]
            entry = self._reference_for(seed, wanted)
            stored += sum(r.numel() * r.element_size() for r in entry["outputs"])
            if stored > budget:
                entry["outputs"] = [r.cpu() for r in entry["outputs"]]
            self.references.append(entry)
        self.output_bytes = sum(t.numel() * t.element_size()
                                for t in self.references[0]["expected"])
        self.facts["reference"] = {
            "fp64": self.ref_exact is not None,
            "outputs": [{"shape": list(r.shape), "dtype": str(r.dtype).replace("torch.", "")}
                        for r in self.references[0]["expected"]],
            "self_error": [e["self_error"] for e in self.references],
            "distributions": [e["distribution"] for e in self.references],
        }

    def _reference_for(self, seed: int, wanted: str) -> dict[str, Any]:
        """One trial's reference; falls back to the task's own inputs where another distribution
        makes the reference fail or produce non-finite values."""
        for distribution in ([wanted, "task"] if wanted != "task" else ["task"]):
            try:
                x = self._make_inputs(seed, distribution)
            except Exception as e:  # noqa: BLE001
                if distribution == "task":
                    self._fail_task(e)
                continue
            try:
                with torch.no_grad():
                    expected = check.flatten_outputs(self.ref_model(*x))
            except Exception as e:  # noqa: BLE001
                if distribution == "task":
                    self._fail_task(e)
                continue
            exact = self._exact_reference(x, expected)
            if not all(isinstance(t, torch.Tensor) for t in expected):
                self._fail_task(load.LoadError("the reference Model returned something other than "
                                               "tensors"))
            finite = all(bool(torch.isfinite(t).all()) for t in exact if t.is_floating_point())
            if not finite and distribution != "task":
                continue
            outputs = [self._stored(e, t) for e, t in zip(expected, exact)]
            maxima = [check.max_abs_finite(t) if t.is_floating_point() else None
                      for t in outputs]
            self_error = _relative_error(expected, exact) if exact is not expected else 0.0
            label = distribution if distribution == wanted else f"task (fallback from {wanted})"
            spec = inputs.InputSpec.of(x)
            del x
            return {"seed": seed, "distribution": label, "base": distribution, "spec": spec,
                    "outputs": outputs, "maxima": maxima,
                    # Shape and dtype the candidate must produce, without the storage.
                    "expected": [torch.empty(t.shape, dtype=t.dtype, device="meta")
                                 for t in expected],
                    "self_error": self_error}
        raise AssertionError("unreachable: the task distribution either returns or fails")

    def _exact_reference(self, x: list[Any], expected: list[Any]) -> list[Any]:
        """The float64 reference's outputs on x, or `expected` when there is none. A task that
        cannot run in float64 (tensors it makes in float32 inside forward, an op without a
        float64 kernel) keeps the task precision for the whole evaluation, with a note."""
        if self.ref_exact is None:
            return expected
        try:
            x64 = [t.to(torch.float64) if isinstance(t, torch.Tensor) and t.is_floating_point()
                   else t for t in x]
            with torch.no_grad():
                return check.flatten_outputs(self.ref_exact(*x64))
        except Exception as e:  # noqa: BLE001
            message = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
            self.facts["notes"].append(f"float64 reference failed ({type(e).__name__}: "
                                       f"{message}); using the task precision")
            self.ref_exact = None
            return expected

    def _stored(self, expected: torch.Tensor, exact: torch.Tensor) -> torch.Tensor:
        """The reference kept for comparison: the exact output rounded to float32 (float64 for
        float64 tasks), which costs nothing at any tolerance we use."""
        if not exact.is_floating_point():
            return exact.detach()
        keep = torch.float64 if expected.dtype == torch.float64 else torch.float32
        return exact.detach().to(keep)

    def _fail_task(self, e: BaseException) -> None:
        self.facts["status"] = Status.TASK_ERROR
        self.facts["error"] = load.describe(e)
        raise Abort()

    def _reference_budget_bytes(self) -> int:
        if not self.on_gpu:
            return 1 << 62
        free, _total = torch.cuda.mem_get_info(self.device)
        return int(free * self.o.reference_gpu_fraction)

    def _roofline(self) -> dict[str, Any] | None:
        """What the reference does: matrix-unit flops (torch's flop counter over one reference
        call) and bytes (every input and parameter read once, every output written once); and
        what any correct kernel must do: `io_bytes`, the forward inputs read once and the outputs
        written once. Only `io_bytes` sets the speed-of-light bound (C++ side): a kernel may
        legitimately skip flops by algebra (a GEMM followed by a sum needs only a GEMV) and
        read parameters reduced once at construction."""
        try:
            from torch.utils.flop_counter import FlopCounterMode

            ref = self.references[0]
            x = self._make_inputs(ref["seed"], ref["base"])
            with torch.no_grad(), FlopCounterMode(display=False) as counter:
                out = check.flatten_outputs(self.ref_model(*x))
            io = [t for t in x if isinstance(t, torch.Tensor)]
            io += [t for t in out if isinstance(t, torch.Tensor)]
            params = list(self.ref_model.parameters()) + list(self.ref_model.buffers())

            def size(tensors: list[torch.Tensor]) -> int:
                return int(sum(t.numel() * t.element_size() for t in tensors))

            return {"flops": int(counter.get_total_flops()), "bytes": size(io + params),
                    "io_bytes": size(io)}
        except Exception as e:  # noqa: BLE001 - a missing bound is a note, not a failure.
            self.facts["notes"].append(f"no roofline figures: {type(e).__name__}: {e}")
            return None

    def _null_selftest(self) -> dict[str, bool]:
        """Which trivial outputs would pass this task's checks: zeros, one constant (the mean of
        the first reference), the first input itself, and that input's mean. Any that passes
        makes the task degenerate: a 'correct' verdict on it proves little."""
        criterion = self.o.criterion
        atol, rtol = self.o.atol, self.o.rtol
        first = self.references[0]["outputs"]
        means = [float(t.double().mean()) if t.is_floating_point() and t.numel() else 0.0
                 for t in first]

        def constant(value_of: Callable[[dict[str, Any], int], float | None]) -> bool:
            for ref in self.references:
                for k, (stored, ref_max) in enumerate(zip(ref["outputs"], ref["maxima"])):
                    value = value_of(ref, k)
                    if value is None or check.constant_mismatches(
                            value, stored, criterion, atol, rtol, ref_max or 0.0):
                        return False
            return True

        def first_input(ref: dict[str, Any]) -> torch.Tensor | None:
            x = self._make_inputs(ref["seed"], ref["base"])
            return next((t for t in x if isinstance(t, torch.Tensor)), None)

        def input_mean(ref: dict[str, Any], k: int) -> float | None:
            x = first_input(ref)
            return float(x.double().mean()) if x is not None and x.is_floating_point() else None

        def identity() -> bool:
            for ref in self.references:
                x = first_input(ref)
                for stored in ref["outputs"]:
                    if (x is None or x.numel() != stored.numel()
                            or check.count_mismatches(x.reshape(stored.shape), stored, criterion,
                                                      atol, rtol)):
                        return False
            return True

        return {"zeros": constant(lambda ref, k: 0.0),
                "constant": constant(lambda ref, k: means[k]),
                "input_mean": constant(input_mean),
                "identity": identity()}

    def _check_identities(self) -> None:
        """After any candidate code ran: puts back what it replaced in the harness's namespaces
        and removes global module hooks it registered (both recorded), and collects what the
        audit hook and torch.compile's counters saw."""
        changed = self.identities.check_and_restore()
        changed += clear_global_hooks([self.ref_model] + ([self.ref_exact] if self.ref_exact
                                                         is not None else []))
        if changed:
            seen = self.facts.setdefault("patched", [])
            seen.extend(name for name in changed if name not in seen)
        runtime = self.facts.setdefault("runtime_findings", [])
        for finding in self.audit.findings:
            if finding not in runtime:
                runtime.append(finding)
        if _dynamo_frames() > self.dynamo_frames:
            finding = {"rule": "torch_compile", "line": 0, "text": "torch.compile ran"}
            if finding not in runtime:
                runtime.append(finding)

    def _check_inheritance(self, model_new_class: type) -> None:
        """ModelNew's ancestry at runtime (the static rule only sees class statements)."""
        for base in model_new_class.__mro__[1:]:
            if base.__name__ == "Model" or base is self.task.model_class:
                self.facts.setdefault("runtime_findings", []).append(
                    {"rule": "model_inheritance", "line": 0,
                     "text": f"ModelNew derives from {base.__module__}.{base.__qualname__}"})
                break

    def _check_flags_after_import(self) -> None:
        now = _precision_flags()
        changed = sorted(k for k in now if now[k] != self.flags.get(k))
        self.facts["flags_changed_by_import"] = changed
        if changed:
            _restore_precision_flags(self.flags)

    # -- correctness ------------------------------------------------------------------------------

    def _poison(self) -> None:
        """Fills memory the candidate's allocations will come from with 0xFF bytes (NaN), so
        output elements it never writes cannot inherit earlier values (the reference's output,
        or the previous call's). Two parts: every block already free in the caching allocator,
        taken one by one from its snapshot (best fit hands out the exact block, smallest first),
        and fresh room for what the candidate allocates beyond them."""
        if not (self.on_gpu and self.o.poison_memory):
            return
        torch.cuda.synchronize(self.device)
        torch.cuda.empty_cache()
        blocks: list[torch.Tensor] = []
        free_sizes = sorted(
            b["size"] for seg in torch.cuda.memory_snapshot()
            if seg.get("device") == self.device.index
            for b in seg.get("blocks", []) if b.get("state") == "inactive")
        for size in free_sizes[:MAX_POISON_BLOCKS]:
            blocks.append(torch.empty(size, dtype=torch.uint8, device=self.device))
        free, _ = torch.cuda.mem_get_info(self.device)
        # Enough for the outputs twice over plus scratch: where new allocations land.
        size = min(2 * self.output_bytes + (256 << 20), int(free * 0.5))
        blocks.append(torch.empty(size, dtype=torch.uint8, device=self.device))
        blocks += [torch.empty(512 << 10, dtype=torch.uint8, device=self.device)
                   for _ in range(32)]
        for b in blocks:
            b.fill_(POISON_BYTE)
        torch.cuda.synchronize(self.device)
        self.facts["poisoned_free_blocks"] = min(len(free_sizes), MAX_POISON_BLOCKS)
        del blocks  # Back to the caching allocator, still holding the poison.

    def _note_threads(self, before: set[threading.Thread]) -> None:
        """Python threads the call started and left running: work that would finish outside any
        timing window."""
        left = [t.name for t in _enumerate_threads() if t not in before and t.is_alive()]
        if left:
            seen = self.facts.setdefault("threads_left_running", [])
            seen.extend(name for name in left if name not in seen)

    def _run_candidate(self, args: list[Any], trial: int) -> Any:
        try:
            with torch.no_grad():
                start = time.perf_counter()
                before = set(_enumerate_threads())
                out = self.model_new(*args)
                self._check_identities()
                self._note_threads(before)
                if self.on_gpu:
                    torch.cuda.synchronize(self.device)
                self.gpu_busy_ms += (time.perf_counter() - start) * 1e3
                return out
        except BaseException as e:  # noqa: BLE001
            self.facts["status"] = Status.FORWARD_ERROR
            self.facts["error"] = load.describe(e)
            self.facts["error"]["trial"] = trial
            raise Abort()

    def _check_trials(self) -> None:
        criterion = self.o.criterion
        atol, rtol = self.o.atol, self.o.rtol
        for i, ref in enumerate(self.references):
            x = self._make_inputs(ref["seed"], ref["base"])
            if inputs.InputSpec.of(x) != ref["spec"]:
                self._inputs_changed(i)
            candidate_inputs = inputs.clone_inputs(x)
            self._poison()
            out = self._run_candidate(candidate_inputs, i)
            trial: dict[str, Any] = {"index": i, "seed": ref["seed"],
                                     "distribution": ref["distribution"]}
            outputs = check.flatten_outputs(out)
            trial["outputs"] = []
            passed = len(outputs) == len(ref["outputs"])
            if not passed:
                trial["problems"] = [f"the candidate returned {len(outputs)} outputs, the "
                                     f"reference {len(ref['outputs'])}"]
            for got, expected, stored, ref_max in zip(outputs, ref["expected"], ref["outputs"],
                                                      ref["maxima"]):
                form = check.structure_facts(got, expected, candidate_inputs)
                entry: dict[str, Any] = {"form": form}
                if not form["problems"] or (form.get("shape_ok") and isinstance(got, torch.Tensor)):
                    entry["values"] = check.compare(got, stored, criterion, atol, rtol, ref_max)
                passed = passed and not form["problems"] and entry.get("values", {}).get("passed",
                                                                                        False)
                trial["outputs"].append(entry)
            trial["inputs_mutated"] = [j for j, (a, b) in enumerate(zip(candidate_inputs, x))
                                       if not check.bitwise_equal(a, b)]
            passed = passed and not trial["inputs_mutated"]
            trial["passed"] = passed
            self.facts["trials"].append(trial)
            if i == 0:
                self.first_output = [o.detach().clone() if isinstance(o, torch.Tensor) else o
                                     for o in outputs]
            del out, outputs, candidate_inputs, x
            if not passed and self.o.stop_at_first_failure:
                break

    def _trace_kernels(self, candidate_path: str) -> None:
        """One more call, on the first trial's inputs, under the profiler: which kernels ran and
        whose they are (trace.py). GPU only, and only for candidates that passed the trials."""
        if not (self.on_gpu and self.o.kernel_trace and self.facts["trials"]
                and all(t.get("passed") for t in self.facts["trials"])):
            return
        ref = self.references[0]
        x = inputs.clone_inputs(self._make_inputs(ref["seed"], ref["base"]))
        module = sys.modules.get(type(self.model_new).__module__)
        try:
            with open(candidate_path, encoding="utf-8", errors="replace") as f:
                source = f.read()
            own = trace.candidate_kernel_names(module, source) if module else set()
        except Exception as e:  # noqa: BLE001 - names not found: only the fallback applies.
            own = set()
            self.facts["notes"].append(f"kernel names not read: {type(e).__name__}: {e}")
        raised: list[BaseException] = []

        def call() -> None:
            try:
                with torch.no_grad():
                    self.model_new(*x)
            except BaseException as e:  # noqa: BLE001 - the candidate's failure, judged below.
                raised.append(e)

        try:
            found = trace.trace_call(call, own, self.device)
        except Exception as e:  # noqa: BLE001 - the profiler's failure is a note, not a verdict.
            self.facts["notes"].append(f"no kernel trace: {type(e).__name__}: {e}")
            found = None
        self._check_identities()
        if raised:  # It passed every trial on these inputs: failing now is a finding in itself.
            self.facts["status"] = Status.FORWARD_ERROR
            self.facts["error"] = load.describe(raised[0])
            self.facts["error"]["trial"] = "kernel trace"
            raise Abort()
        if found is not None:
            self.facts["kernel_trace"] = found

    def _check_determinism(self) -> None:
        if not self.o.determinism_check or not self.facts["trials"]:
            return
        if not self.facts["trials"][0].get("passed"):
            return
        ref = self.references[0]
        x = self._make_inputs(ref["seed"], ref["base"])
        self._poison()
        again = check.flatten_outputs(self._run_candidate(inputs.clone_inputs(x), 0))
        worst = 0.0
        identical = True
        special_mismatch = False
        for a, b in zip(self.first_output, again):
            if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
                continue
            identical = identical and check.bitwise_equal(a, b)
            d = check.max_difference(a, b)
            if d is None or d == float("inf"):
                special_mismatch = True
            else:
                worst = max(worst, d)
        atol, rtol = self.o.atol, self.o.rtol
        scale = max((t.get("values") or {}).get("ref_max_abs") or 0.0
                    for t in self.facts["trials"][0]["outputs"])
        allowed = atol * scale + rtol * scale
        self.facts["determinism"] = {"identical": identical, "max_abs_diff": worst,
                                     "special_mismatch": special_mismatch,
                                     "passed": identical or (not special_mismatch
                                                             and worst <= allowed)}

    def _inputs_changed(self, where: int | str) -> None:
        self.facts["status"] = Status.INPUTS_CHANGED
        self.facts["error"] = {
            "type": "InputsChanged", "traceback": "",
            "message": f"the task's inputs changed shape or type after the candidate was imported "
                       f"(at {where})", "triton_compile": False, "cuda_error": None,
            "out_of_memory": False}
        raise Abort()

    # -- timing -----------------------------------------------------------------------------------

    def _time(self) -> None:
        o = self.o
        timer = Timer(self.device, o.l2_flush)
        rng = random.Random(o.seed * 7919 + 1)
        warmup, runs = o.warmup_runs, o.timed_runs
        fresh = o.fresh_inputs_per_run
        interleave = o.interleave_reference
        revalidate = o.revalidate_timed
        criterion = o.criterion
        ratol, rrtol = o.revalidate_atol, o.revalidate_rtol
        spec = self.references[0]["spec"] if self.references[0]["base"] == "task" else None
        fixed = None if fresh else self._make_inputs(self.seeds[0], "task")
        samples: dict[str, list[float]] = {"candidate_ms": [], "reference_ms": [],
                                           "candidate_wall_ms": [], "reference_wall_ms": []}
        failures, mutated, checked = 0, 0, 0
        first_failure: dict[str, Any] | None = None

        def record(kind: str, i: int, ms: float, wall: float) -> None:
            self.gpu_busy_ms += ms
            if i >= warmup:
                samples[f"{kind}_ms"].append(round(ms, 6))
                samples[f"{kind}_wall_ms"].append(round(wall, 6))

        with torch.no_grad():
            for i in range(warmup + runs):
                if fresh:
                    x = self._make_inputs(rng.getrandbits(32), "task")
                    if spec is not None and inputs.InputSpec.of(x) != spec:
                        self._inputs_changed(f"timed run {i}")
                    cx = inputs.clone_inputs(x)
                else:
                    x = cx = fixed
                if not interleave:
                    out, ms, wall = self._timed_candidate(timer, cx, i)
                    record("candidate", i, ms, wall)
                    continue
                if rng.random() < 0.5:
                    ref_out, rms, rwall = timer.time(self.ref_model, x)
                    out, ms, wall = self._timed_candidate(timer, cx, i)
                else:
                    out, ms, wall = self._timed_candidate(timer, cx, i)
                    ref_out, rms, rwall = timer.time(self.ref_model, x)
                record("candidate", i, ms, wall)
                record("reference", i, rms, rwall)
                if revalidate and i >= warmup:
                    checked += 1
                    ok, detail = self._revalidate(out, ref_out, criterion, ratol, rrtol)
                    if fresh and not all(check.bitwise_equal(a, b) for a, b in zip(cx, x)):
                        mutated += 1
                        ok = False
                    if not ok:
                        failures += 1
                        first_failure = first_failure or {"run": i - warmup, **detail}
                del out
            if not interleave:
                for i in range(warmup + runs):
                    _, rms, rwall = timer.time(self.ref_model, fixed)
                    record("reference", i, rms, rwall)
        timing: dict[str, Any] = {"warmup_runs": warmup, "timed_runs": runs, **samples,
                                  "clock": "cuda_event" if self.on_gpu else "perf_counter",
                                  "meaningful": self.on_gpu, "fresh_inputs": fresh,
                                  "interleaved": interleave, "revalidated": checked,
                                  "revalidation_failures": failures,
                                  "inputs_mutated_runs": mutated}
        if first_failure:
            timing["first_revalidation_failure"] = first_failure
        if o.compile_baseline:
            compiled = self._compile_reference(rng)
            if compiled is not None:
                timing["compiled_reference_ms"] = self._time_compiled(
                    timer, warmup, runs, rng, compiled)
        self.facts["timing"] = timing

    def _timed_candidate(self, timer: Timer, args: list[Any], i: int) -> tuple[Any, float, float]:
        try:
            before = set(_enumerate_threads())
            os_before = _thread_count()
            result = timer.time(self.model_new, args)
            os_after = _thread_count()
            self._check_identities()
            self._note_threads(before)
            if os_after > os_before and i >= self.o.warmup_runs:
                # A thread no Python API shows (e.g. _thread.start_new_thread) still running
                # once the call and the device are done: work outside the window.
                self.facts["os_threads_left_running"] = max(
                    self.facts.get("os_threads_left_running", 0), os_after - os_before)
            return result
        except BaseException as e:  # noqa: BLE001
            self.facts["status"] = Status.FORWARD_ERROR
            self.facts["error"] = load.describe(e)
            self.facts["error"]["timed_run"] = i
            raise Abort()

    def _revalidate(self, out: Any, ref_out: Any, criterion: str, atol: float,
                    rtol: float) -> tuple[bool, dict[str, Any]]:
        got, want = check.flatten_outputs(out), check.flatten_outputs(ref_out)
        if len(got) != len(want):
            return False, {"problem": "number of outputs changed"}
        for g, w in zip(got, want):
            if not isinstance(g, torch.Tensor) or g.shape != w.shape:
                return False, {"problem": "output form changed"}
            bad = check.count_mismatches(g, w, criterion, atol, rtol)
            if bad:
                return False, {"problem": "values", "violations": bad}
        return True, {}

    def _compile_reference(self, rng: random.Random) -> Any:
        """torch.compile(reference), compiled by one call; None (and a note) if that fails."""
        try:
            compiled = torch.compile(self.ref_model)
            with torch.no_grad():
                compiled(*self._make_inputs(rng.getrandbits(32), "task"))
            return compiled
        except Exception as e:  # noqa: BLE001
            self.facts["notes"].append(f"torch.compile baseline failed: {type(e).__name__}: {e}")
            return None

    def _time_compiled(self, timer: Timer, warmup: int, runs: int, rng: random.Random,
                       compiled: Any) -> list[float] | None:
        try:
            out: list[float] = []
            with torch.no_grad():
                for i in range(warmup + runs):
                    x = self._make_inputs(rng.getrandbits(32), "task")
                    _, ms, _ = timer.time(compiled, x)
                    self.gpu_busy_ms += ms
                    if i >= warmup:
                        out.append(round(ms, 6))
            return out
        except Exception as e:  # noqa: BLE001
            self.facts["notes"].append(f"torch.compile baseline failed: {type(e).__name__}: {e}")
            return None


def _relative_error(expected: list[torch.Tensor], exact: list[torch.Tensor]) -> float | None:
    """max |task-precision reference - float64 reference| / max |float64 reference|: how far
    PyTorch itself is from exact at the task's precision."""
    worst = 0.0
    for e, x in zip(expected, exact):
        if not x.is_floating_point() or e.shape != x.shape:
            continue
        d = check.max_difference(e, x)
        scale = check.max_abs_finite(x)
        if d is None or scale == 0.0:
            continue
        worst = max(worst, d / scale)
    return finite_or_none(worst)


_enumerate_threads = threading.enumerate  # Bound before any candidate is imported.


def _dynamo_frames() -> int:
    """Frames torch.compile has compiled in this process so far."""
    try:
        from torch._dynamo.utils import counters
        return int(sum(counters["frames"].values()))
    except Exception:  # noqa: BLE001
        return 0


def _precision_flags() -> dict[str, Any]:
    return {
        "cudnn.enabled": torch.backends.cudnn.enabled,
        "cudnn.benchmark": torch.backends.cudnn.benchmark,
        "cudnn.deterministic": torch.backends.cudnn.deterministic,
        "deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
        "default_dtype": str(torch.get_default_dtype()),
        "cuda.matmul.allow_tf32": torch.backends.cuda.matmul.allow_tf32,
        "cudnn.allow_tf32": torch.backends.cudnn.allow_tf32,
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "cuda.matmul.allow_fp16_reduced_precision_reduction":
            torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
        "cuda.matmul.allow_bf16_reduced_precision_reduction":
            torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
    }


def _restore_precision_flags(flags: dict[str, Any]) -> None:
    torch.backends.cudnn.enabled = flags["cudnn.enabled"]
    torch.backends.cudnn.benchmark = flags["cudnn.benchmark"]
    torch.backends.cudnn.deterministic = flags["cudnn.deterministic"]
    torch.use_deterministic_algorithms(flags["deterministic_algorithms"])
    torch.set_default_dtype(getattr(torch, flags["default_dtype"].replace("torch.", "")))
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = flags[
        "cuda.matmul.allow_fp16_reduced_precision_reduction"]
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = flags[
        "cuda.matmul.allow_bf16_reduced_precision_reduction"]
    torch.backends.cuda.matmul.allow_tf32 = flags["cuda.matmul.allow_tf32"]
    torch.backends.cudnn.allow_tf32 = flags["cudnn.allow_tf32"]
    torch.set_float32_matmul_precision(flags["float32_matmul_precision"])


def _thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0
