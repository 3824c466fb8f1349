"""The reference phase's choices under memory pressure: where stored outputs live, and what an
out-of-memory in the float64 reference means beside other jobs and alone."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
import torch

from adaexplore_worker.evaluation import errors, references
from adaexplore_worker.evaluation.context import Abort
from adaexplore_worker.protocol.facts import Status

# What PyTorch's allocator raised on the H200 in the sandbox (issue 36), for an out-of-memory.
NVML_ASSERT = ('NVML_SUCCESS == DriverAPI::get()->nvmlInit_v2_() INTERNAL ASSERT FAILED at '
               '"/pytorch/c10/cuda/CUDACachingAllocator.cpp":1135, please report a bug to PyTorch.')


def test_pytorchs_nvml_assert_and_oom_errors_are_out_of_memory_and_others_are_not() -> None:
    assert errors.is_out_of_memory(RuntimeError(NVML_ASSERT))
    assert errors.describe(RuntimeError(NVML_ASSERT))["out_of_memory"]
    assert errors.is_out_of_memory(torch.cuda.OutOfMemoryError("CUDA out of memory."))
    wrapped = RuntimeError("the kernel failed")
    wrapped.__cause__ = MemoryError()
    assert errors.is_out_of_memory(wrapped)
    assert not errors.is_out_of_memory(RuntimeError("NVML_SUCCESS is not what we got"))
    assert not errors.is_out_of_memory(ValueError("shape mismatch"))


class _Float64Fails(torch.nn.Module):
    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error = error

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise self.error


def _ctx(error: BaseException, exclusive: bool) -> Any:
    options = SimpleNamespace(exclusive=exclusive, trials=3, integrity_distributions=[],
                              fp64_budget_s=0.0)
    return SimpleNamespace(o=options, ref_exact=_Float64Fails(error), on_gpu=False,
                           device=torch.device("cpu"), references=[],
                           facts={"notes": []})


@pytest.mark.parametrize("error", [RuntimeError(NVML_ASSERT), torch.cuda.OutOfMemoryError("x")])
def test_a_float64_reference_out_of_memory_beside_others_is_a_task_error_to_retry_alone(
        error: BaseException) -> None:
    ctx = _ctx(error, exclusive=False)
    expected = [torch.ones(4)]
    with pytest.raises(Abort):
        references._exact_reference(ctx, [torch.ones(4)], expected)
    assert ctx.facts["status"] == Status.TASK_ERROR
    assert ctx.facts["error"]["out_of_memory"]  # What the C++ side retries alone.
    assert not ctx.facts["notes"]  # Not quietly judged at the task's precision.


def test_alone_a_float64_reference_out_of_memory_falls_back_to_the_task_precision() -> None:
    ctx = _ctx(RuntimeError(NVML_ASSERT), exclusive=True)
    expected = [torch.ones(4)]
    assert references._exact_reference(ctx, [torch.ones(4)], expected) is expected
    assert ctx.ref_exact is None
    assert "float64 reference failed" in ctx.facts["notes"][0]


def test_another_float64_failure_falls_back_whoever_shares_the_device() -> None:
    ctx = _ctx(RuntimeError("no float64 kernel for this op"), exclusive=False)
    expected = [torch.ones(4)]
    assert references._exact_reference(ctx, [torch.ones(4)], expected) is expected
    assert "no float64 kernel" in ctx.facts["notes"][0]


class _Output:
    """A 4 KiB output that records where it was moved (the CPU has no device to move it to)."""

    def __init__(self, where: str = "device") -> None:
        self.where = where

    def numel(self) -> int:
        return 1024

    def element_size(self) -> int:
        return 4

    def to(self, where: Any) -> "_Output":
        return _Output(str(where))


def test_stored_outputs_stay_on_the_device_up_to_the_budget_each_as_it_is_made(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(references, "_budget_bytes", lambda ctx: 3 * 4 * 1024)
    place = references._Placement(SimpleNamespace(device="cuda:0"))
    placed = []
    for _ in range(5):
        entry = {"outputs": [_Output()]}
        place(entry)  # Before the next trial is made.
        placed.append(entry["outputs"][0].where)
    assert placed == ["cuda:0", "cuda:0", "cuda:0", "cpu", "cpu"]
