"""Making the inputs of one trial: the task's own get_inputs(), seeded, then reshaped in value
(never in shape or dtype) to the trial's distribution, cast to the run's precision and placed on
the device.

Distributions ("task" is the task's own; the others replace floating-point inputs):
  task         as get_inputs() made them
  normal       standard normal
  uniform_pm1  uniform on [-1, 1)
  scaled       the task's values times a per-trial scale, log-uniform in [1e-2, 1e2]
  negative     the task's values negated
  heavy        normal times exp(normal): heavy-tailed, both signs
Integer and boolean tensors are never changed (indices and labels keep their meaning).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import torch

DISTRIBUTIONS = ("task", "normal", "uniform_pm1", "scaled", "negative", "heavy")
_DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16,
           "fp64": torch.float64}


def dtype_for(precision: str) -> torch.dtype:
    return _DTYPES[precision]


@dataclass
class InputSpec:
    """What a trial's inputs must look like: shapes, dtypes, non-tensor values."""
    items: list[tuple[str, Any]]

    @staticmethod
    def of(inputs: list[Any]) -> "InputSpec":
        items: list[tuple[str, Any]] = []
        for x in inputs:
            if isinstance(x, torch.Tensor):
                items.append(("tensor", (tuple(x.shape), str(x.dtype))))
            else:
                items.append(("value", repr(x)[:200]))
        return InputSpec(items)


def make_inputs(task_get_inputs: Any, seed: int, distribution: str, precision: str | None,
                device: torch.device, generate_on: str) -> list[Any]:
    """Inputs for one trial. `generate_on` is "device" (fast: get_inputs() runs with the device as
    the default device) or "cpu" (bit-identical to KernelBench's CPU generation, then moved).
    Floating-point inputs are cast to `precision`; None keeps the dtypes the task made."""
    torch.manual_seed(seed)
    if generate_on == "device":
        with torch.device(device):
            raw = task_get_inputs()
    else:
        raw = task_get_inputs()
    if not isinstance(raw, (list, tuple)):
        raise TypeError(f"get_inputs() returned {type(raw).__name__}, not a list")
    rng = random.Random(seed ^ 0x5BD1E995)
    scale = 10.0 ** rng.uniform(-2.0, 2.0)
    generator = torch.Generator(device=device).manual_seed(rng.getrandbits(63))
    target = dtype_for(precision) if precision is not None else None
    out: list[Any] = []
    for x in raw:
        if isinstance(x, torch.Tensor):
            x = x.to(device)
            if x.is_floating_point():
                x = _reshape_values(x, distribution, scale, generator)
                x = x.to(target) if target is not None else x
        out.append(x)
    return out


def _reshape_values(x: torch.Tensor, distribution: str, scale: float,
                    generator: torch.Generator) -> torch.Tensor:
    if distribution == "task":
        return x
    if distribution == "normal":
        return torch.randn(x.shape, dtype=x.dtype, device=x.device, generator=generator)
    if distribution == "uniform_pm1":
        return torch.rand(x.shape, dtype=x.dtype, device=x.device, generator=generator) * 2 - 1
    if distribution == "scaled":
        return x * scale
    if distribution == "negative":
        return -x
    if distribution == "heavy":
        a = torch.randn(x.shape, dtype=x.dtype, device=x.device, generator=generator)
        b = torch.randn(x.shape, dtype=x.dtype, device=x.device, generator=generator)
        return a * torch.exp(b)
    raise ValueError(f"unknown input distribution {distribution!r}")


def clone_inputs(inputs: list[Any]) -> list[Any]:
    """Fresh storage for every tensor (new data_ptr), same values and strides."""
    return [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]


def refill(buffers: list[Any] | None, values: list[Any]) -> list[Any] | None:
    """`values` copied into `buffers` (an earlier run's inputs: same data_ptr, new values), when
    every tensor matches in shape, dtype, strides and device; None otherwise."""
    if buffers is None or len(buffers) != len(values):
        return None
    for b, v in zip(buffers, values):
        if isinstance(b, torch.Tensor) != isinstance(v, torch.Tensor):
            return None
        if isinstance(v, torch.Tensor) and (b.shape != v.shape or b.dtype != v.dtype
                                            or b.stride() != v.stride() or b.device != v.device):
            return None
    out = []
    for b, v in zip(buffers, values):
        if isinstance(v, torch.Tensor):
            b.copy_(v)
            out.append(b)
        else:
            out.append(v)
    return out


def trial_seeds(mode: str, seed: int, count: int) -> list[int]:
    """Per-trial seeds. "paper" reproduces the reference release (torch.manual_seed(seed), then
    torch.randint per trial); "derived" draws them from the job's seed."""
    if mode == "paper":
        torch.manual_seed(seed)
        return [int(torch.randint(0, 2**32 - 1, (1,)).item()) for _ in range(count)]
    rng = random.Random(seed)
    return [rng.getrandbits(32) for _ in range(count)]
