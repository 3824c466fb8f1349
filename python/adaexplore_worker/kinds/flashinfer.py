"""FlashInfer-Trace tasks: a Definition (JSON) and one of its workloads, as the harness's Task.

The definition and the workload are read with the flashinfer-bench package's own data models
(its pydantic `Definition`, `Workload`, `Solution`) and its input generation (`gen_inputs`:
random tensors by dtype, scalars, safetensors blobs), so a workload's inputs are the ones
FlashInfer-Bench itself would make. The reference is the definition's `run`; it is wrapped in a
module whose forward takes the inputs in definition order and returns the outputs in definition
order, so every phase of the harness (trials, timing, re-validation, the trace) applies unchanged.

A candidate is a Solution (JSON with `sources` and `spec.entry_point`, "main.py::run") or a Python
file exposing `run`. Its entry point is called with keyword arguments named as the definition's
inputs, and, in destination-passing style, its outputs too (preallocated, as FlashInfer-Bench
does). The style is the Solution's `spec.destination_passing_style` when it says, else what the
entry point's signature accepts.

Where FlashInfer has its own kernel for a definition (`expert`), the task names it as its expert
baseline: the harness times it beside the candidate when the `flashinfer` package imports.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import re
import types
from typing import Any

import torch

from ..protocol.job import TaskFile
from ..task import Expert, LoadError, Task, exec_module

SOLUTION_DIR = "solution"  # Where a Solution's sources are written, beside the candidate file.


def _package() -> tuple[Any, Any]:
    try:
        import flashinfer_bench.bench.utils as bench_utils
        import flashinfer_bench.data as data
    except Exception as e:  # noqa: BLE001 - any import failure means the same to the user.
        raise LoadError("FlashInfer-Trace tasks need the flashinfer-bench package (0.1.2) in the "
                        "worker's Python: pip install --no-deps flashinfer-bench==0.1.2 pydantic "
                        f"safetensors docstring-parser ({type(e).__name__}: {e})") from None
    return data, bench_utils


def _validation_error(where: str, e: Exception) -> LoadError:
    """A pydantic error as one line per problem, each naming its field."""
    errors = getattr(e, "errors", None)
    if callable(errors):
        lines = [f"{'.'.join(str(p) for p in err.get('loc', ())) or '(top level)'}: "
                 f"{err.get('msg', '')}" for err in errors()]
        return LoadError(f"{where}: " + "; ".join(lines))
    return LoadError(f"{where}: {e}")


def read_definition(path: str) -> Any:
    data, _ = _package()
    name = os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
    except json.JSONDecodeError as e:
        raise LoadError(f"{name} is not JSON: {e}") from None
    if isinstance(raw, dict) and isinstance(raw.get("axes"), dict):
        for part in ("inputs", "outputs"):
            for tensor, spec in (raw.get(part) or {}).items():
                for axis in (spec.get("shape") or []) if isinstance(spec, dict) else []:
                    if axis not in raw["axes"]:
                        raise LoadError(f"{name}: {part}.{tensor}.shape names the axis '{axis}', "
                                        f"which axes does not declare ({sorted(raw['axes'])})")
    try:
        return data.Definition.model_validate(raw)
    except Exception as e:  # noqa: BLE001 - pydantic's ValidationError and its validators'.
        raise _validation_error(f"{name} is not a valid FlashInfer-Trace definition", e) from None


def read_workload(definition: Any, workload: dict[str, Any] | None, name: str) -> Any:
    data, _ = _package()
    if workload is None:
        raise LoadError(f"{name}: no workload was given for this definition")
    try:
        parsed = data.Workload.model_validate(workload)
    except Exception as e:  # noqa: BLE001
        raise _validation_error(f"{name}: workload {workload.get('uuid', '?')}", e) from None
    uuid = parsed.uuid
    var_axes = set(definition.var_axes)
    for axis in parsed.axes:
        if axis not in definition.axes:
            raise LoadError(f"{name}: workload {uuid}: axes.{axis} is not an axis of the "
                            f"definition (it has {sorted(definition.axes)})")
        if axis not in var_axes:
            raise LoadError(f"{name}: workload {uuid}: axes.{axis} is a const axis; a workload "
                            f"sets var axes only")
    missing = sorted(var_axes - set(parsed.axes))
    if missing:
        raise LoadError(f"{name}: workload {uuid}: axes lacks the var axis/axes {missing}")
    for key in parsed.inputs:
        if key not in definition.inputs:
            raise LoadError(f"{name}: workload {uuid}: inputs.{key} is not an input of the "
                            f"definition (it has {list(definition.inputs)})")
    return parsed


def _blobs(definition: Any, workload: Any, data_root: str, name: str) -> dict[str, torch.Tensor]:
    """The workload's safetensors inputs, read once (on the host) and checked."""
    from pathlib import Path

    _, bench_utils = _package()
    for key, spec in workload.inputs.items():
        if spec.type != "safetensors":
            continue
        path = spec.path if os.path.isabs(spec.path) else os.path.join(data_root, spec.path)
        if not os.path.isfile(path):
            raise LoadError(f"{name}: workload {workload.uuid}: inputs.{key}.path: the blob "
                            f"{spec.path} does not exist (looked in {data_root or '.'})")
    try:
        return bench_utils.load_safetensors(definition, workload, Path(data_root or "."))
    except Exception as e:  # noqa: BLE001
        raise LoadError(f"{name}: workload {workload.uuid}: {type(e).__name__}: {e}") from None


def outputs_tuple(result: Any, names: list[str]) -> tuple[Any, ...]:
    """What a `run` returned, as a tuple in definition order (a dict by name, one tensor, a
    tuple or list in order). A Python scalar becomes a 0-d tensor."""
    if isinstance(result, dict):
        missing = [n for n in names if n not in result]
        if missing:
            raise RuntimeError(f"the returned dict lacks the output(s) {missing}")
        values = [result[n] for n in names]
    elif isinstance(result, (tuple, list)):
        if len(result) != len(names):
            raise RuntimeError(f"returned {len(result)} value(s); the definition has "
                               f"{len(names)} output(s) {names}")
        values = list(result)
    else:
        if len(names) != 1:
            raise RuntimeError(f"returned one value; the definition has outputs {names}")
        values = [result]
    return tuple(v if isinstance(v, torch.Tensor) else torch.tensor(v) for v in values)


def load_task(path: str, spec: TaskFile | None, device: str) -> Task:
    """The definition at `path` and the workload `spec` names, its blobs under `spec.data_root`
    (`device`: the signature every kind shares; inputs are made on torch's default device)."""
    assert spec is not None  # The kind comes from the spec: a FlashInfer task always has one.
    data, bench_utils = _package()
    name = os.path.basename(path)
    definition = read_definition(path)
    workload = read_workload(definition, spec.workload, name)
    try:
        definition.get_input_shapes(workload.axes)
    except Exception as e:  # noqa: BLE001
        raise LoadError(f"{name}: workload {workload.uuid}: {e}") from None
    blobs = _blobs(definition, workload, spec.data_root, name)
    module = types.ModuleType("adaexplore_task")
    exec_module(module, definition.reference, path + "::reference")
    run = getattr(module, "run", None)
    if not callable(run):
        raise LoadError(f"{name}: reference defines no function run")
    input_names, output_names = list(definition.inputs), list(definition.outputs)

    class Model(torch.nn.Module):
        def forward(self, *args: Any) -> tuple[Any, ...]:
            return outputs_tuple(run(**dict(zip(input_names, args))), output_names)

    def get_inputs() -> list[Any]:
        device = torch.get_default_device()
        return bench_utils.gen_inputs(definition, workload, str(device),
                                      {k: v.clone() for k, v in blobs.items()})

    entry = _Entry("", "run", None)  # The candidate's, once prepare() has read it.

    def prepare(candidate_path: str) -> str:
        nonlocal entry
        entry = _solution_entry(candidate_path, definition)
        if entry.path != candidate_path:
            task.import_dirs.append(os.path.join(os.path.dirname(candidate_path), SOLUTION_DIR))
        return entry.path

    def adapt(module: types.ModuleType, entry_file: str) -> type:
        model = _entry_model(module, entry, definition)
        task.interface = {"entry_point": entry.symbol,
                          "destination_passing_style": model.DESTINATION_PASSING_STYLE}
        return model

    task = Task(module=module, model_class=Model, get_inputs=get_inputs,
                get_init_inputs=lambda: [], kind="flashinfer", keeps_dtypes=True,
                prepare_candidate=prepare, adapt_candidate=adapt, expert=expert(definition),
                description={"definition": definition.name, "workload": workload.uuid,
                             "axes": dict(workload.axes)})
    return task


# -- the expert baseline --------------------------------------------------------------------------

def _reference_eps(reference: str) -> float | None:
    """The epsilon a norm's reference hard-codes (`EPS = 1e-5`), which FlashInfer's kernel takes
    as an argument."""
    found = re.search(r"^\s*EPS\s*=\s*([0-9.eE+-]+)\s*$", reference, re.MULTILINE)
    try:
        return float(found.group(1)) if found else None
    except ValueError:
        return None


def expert(definition: Any) -> Expert | None:
    """FlashInfer's own kernel for `definition`, called as FlashInfer-Bench's reference tests
    call it (flashinfer-trace's tests/references): `flashinfer.norm.rmsnorm` for an RMSNorm, and
    `fused_add_rmsnorm` for one fused with a residual add, which writes its output over
    `hidden_states` (and the sum over `residual`), so each call needs inputs of its own. None
    for definitions without one (a gemm's reference is cuBLAS already). Built, it takes the
    inputs in definition order and returns the outputs as the reference's model does."""
    inputs, outputs = list(definition.inputs), list(definition.outputs)
    eps = _reference_eps(definition.reference) if definition.op_type == "rmsnorm" else None
    if eps is None or outputs != ["output"]:
        return None
    fused = inputs == ["hidden_states", "residual", "weight"]
    if not fused and inputs != ["hidden_states", "weight"]:
        return None

    def build() -> Any:
        import flashinfer

        if fused:
            kernel = flashinfer.norm.fused_add_rmsnorm

            def run(hidden_states: Any, residual: Any, weight: Any) -> tuple[Any, ...]:
                kernel(hidden_states, residual, weight, eps)
                return (hidden_states,)
            return run
        kernel = flashinfer.norm.rmsnorm
        return lambda hidden_states, weight: (kernel(hidden_states, weight, eps),)

    name = "fused_add_rmsnorm" if fused else "rmsnorm"
    return Expert(f"flashinfer.norm.{name}", build)


# -- candidates -----------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class _Entry:
    """Where a candidate's entry point is: the Python file to import, the function, and the
    Solution's destination_passing_style where it says (None: the signature decides)."""
    path: str
    symbol: str
    dps: bool | None


def _solution_entry(candidate_path: str, definition: Any) -> _Entry:
    """The Python file to import: the candidate itself, or a Solution's entry file, written with
    its other sources into a folder beside the candidate."""
    with open(candidate_path, encoding="utf-8") as f:
        text = f.read()
    stripped = text.lstrip()
    if not stripped.startswith("{"):
        return _Entry(candidate_path, "run", None)  # A Python file; `run` is its entry point.
    data, _ = _package()
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise LoadError(f"the candidate looks like a Solution but is not JSON: {e}") from None
    try:
        solution = data.Solution.model_validate(raw)
    except Exception as e:  # noqa: BLE001
        raise _validation_error("the candidate is not a valid Solution", e) from None
    if solution.definition != definition.name:
        raise LoadError(f"the Solution's definition is '{solution.definition}', not "
                        f"'{definition.name}'")
    language = str(getattr(solution.spec.language, "value", solution.spec.language)).lower()
    if language not in ("triton", "python"):
        raise LoadError(f"spec.language '{language}': only Triton and Python solutions are "
                        f"evaluated (a CUDA kernel can be launched from a Python solution)")
    root = os.path.join(os.path.dirname(candidate_path), SOLUTION_DIR)
    for source in solution.sources:
        target = os.path.normpath(os.path.join(root, source.path))
        if not target.startswith(root + os.sep):
            raise LoadError(f"sources path '{source.path}' leaves the solution's folder")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as f:
            f.write(source.content)
    entry = os.path.join(root, str(solution.get_entry_path()))
    if not entry.endswith(".py"):
        raise LoadError(f"spec.entry_point '{solution.spec.entry_point}' is not a Python file")
    said = "destination_passing_style" in raw.get("spec", {})
    return _Entry(entry, solution.get_entry_symbol(),
                  bool(solution.spec.destination_passing_style) if said else None)


def _entry_model(module: types.ModuleType, entry: _Entry, definition: Any) -> type:
    """The candidate's entry point as a model class the harness builds and calls like ModelNew."""
    symbol = entry.symbol
    fn = getattr(module, symbol, None)
    where = f"spec.entry_point '{symbol}'"
    if fn is None:
        raise LoadError(f"{where}: the candidate defines no function {symbol}")
    if not callable(fn):
        raise LoadError(f"{where}: {symbol} is not callable")
    input_names, output_names = list(definition.inputs), list(definition.outputs)
    dps = entry.dps
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        parameters = None  # A builtin or extension function: called as the Solution says.
    if parameters is not None:
        names = [p.name for p in parameters.values()
                 if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        var_keyword = any(p.kind == p.VAR_KEYWORD for p in parameters.values())
        if dps is None:
            dps = all(n in names for n in output_names) and not var_keyword
        wanted = input_names + (output_names if dps else [])
        missing = [n for n in wanted if n not in names]
        extra = [n for n in names if n not in wanted
                 and parameters[n].default is inspect.Parameter.empty]
        if (missing and not var_keyword) or extra:
            raise LoadError(
                f"{where}: its signature ({', '.join(names)}) does not match the definition: "
                f"it must take {wanted}" + (" (destination-passing style)" if dps else ""))
    dps = bool(dps)
    output_specs = [(n, definition.outputs[n]) for n in output_names]
    output_shapes = definition.get_output_shapes
    get_axes = definition.get_axes_values_from_inputs

    def _allocate(args: tuple[Any, ...]) -> dict[str, torch.Tensor]:
        from flashinfer_bench.utils import dtype_str_to_torch_dtype

        axes = get_axes(list(args))
        device = next((a.device for a in args if isinstance(a, torch.Tensor)), None)
        return {n: torch.empty(shape or (), dtype=dtype_str_to_torch_dtype(spec.dtype),
                               device=device)
                for (n, spec), shape in zip(output_specs, output_shapes(axes))}

    class ModelNew(torch.nn.Module):
        def forward(self, *args: Any) -> tuple[Any, ...]:
            kwargs = dict(zip(input_names, args))
            if dps:
                outs = _allocate(args)
                fn(**kwargs, **outs)
                return tuple(outs[n] for n in output_names)
            return outputs_tuple(fn(**kwargs), output_names)

    ModelNew.__qualname__ = f"entry point {symbol}"
    ModelNew.DESTINATION_PASSING_STYLE = dps
    return ModelNew


def candidate_python(text: str) -> str:
    """The Python a candidate holds: a Solution's Python sources joined, else the text itself
    (for the static checks, which read Python)."""
    if not text.lstrip().startswith("{"):
        return text
    try:
        raw = json.loads(text)
        return "\n\n".join(str(s.get("content", "")) for s in raw.get("sources", [])
                           if str(s.get("path", "")).endswith(".py"))
    except (json.JSONDecodeError, AttributeError, TypeError):
        return text

