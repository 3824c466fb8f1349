"""The GPU scope (strict's speedup: the GPU's own time of every timed run, CUPTI's records) as a
hostile kernel author would attack it, against the real binary on the GPU (`--sandbox-device
cuda`, bench/gpu/gpu_time_speedups.sh); skipped on the CPU, which has no GPU timeline. Each
attack is appended to a relu kernel and runs at import (or is the kernel's forward)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import example
from test_judge_reach import STRICT, _cli, _kernel, _results

# The work done on the host between a copy out and a copy back: a Triton kernel of its own still
# runs (the launch and trace checks see it), the host's work sits between GPU work of the call.
HOST_WORK = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        host = x.cpu()
        for _ in range(20):  # Host work worth the GPU's many times over.
            host = torch.clamp(host, min=0)
        staged = host.to(x.device)
        y = torch.empty_like(x)
        n = y.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](staged, y, n, BLOCK=1024)
        return y
'''

# Work run while the head start spins: the kernel goes on a side stream that does not wait for the
# caller's (where the spin is), so it runs before the start event; the caller's stream only waits
# for it. The events then see almost nothing; the GPU timeline sees the kernel's own time.
SPIN_SIDE = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.maximum(tl.load(src_ptr + offs, mask=mask), 0.0), mask=mask)


_SIDE = None


class ModelNew(nn.Module):
    def forward(self, x):
        global _SIDE
        _SIDE = _SIDE or torch.cuda.Stream()
        y = torch.empty_like(x)
        n = y.numel()
        with torch.cuda.stream(_SIDE):
            relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        torch.cuda.current_stream().wait_stream(_SIDE)
        return y
'''

# The reference slowed where it runs beside the candidate: its Model instance, found by a `gc`
# walk at import, does fifty extra matmuls per call. No dispatcher registration, no patched
# harness name: the reference's outputs stay right, only its time beside the candidate grows.
SLOW_REFERENCE = '''
import gc as _gc
import torch as _torch


def _slowed(forward):
    def slow(*args, **kwargs):
        out = forward(*args, **kwargs)
        pad = _torch.ones(512, 512, device=out.device)
        for _ in range(50):
            pad = pad @ pad / 512
        return out
    return slow


for _o in _gc.get_objects():
    if isinstance(_o, _torch.nn.Module) and type(_o).__name__ == "Model":
        _o.forward = _slowed(_o.forward)
'''

# CUPTI itself, reached from the candidate's process: its activity records switched off after
# the harness switched them on (on every call, from the kernel's own forward).
CUPTI_OFF = '''
import gc as _gc
from cupti import cupti as _cupti
ModelNew = next(o for o in _gc.get_objects() if isinstance(o, type) and o.__name__ == "ModelNew")
_forward = ModelNew.forward
def _off(self, x):
    for _kind in (_cupti.ActivityKind.CONCURRENT_KERNEL, _cupti.ActivityKind.MEMCPY,
                  _cupti.ActivityKind.MEMSET, _cupti.ActivityKind.RUNTIME,
                  _cupti.ActivityKind.DRIVER):
        try:
            _cupti.activity_disable(_kind)
        except Exception:
            pass
    return _forward(self, x)
ModelNew.forward = _off
'''


def test_gpu_time_cannot_be_bent(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    cli, device = _cli(request, tmp_path)
    if device != "cuda":
        pytest.skip("the GPU timeline needs a GPU: bench/gpu/gpu_time_speedups.sh")
    honest = tmp_path / "honest.py"
    honest.write_text(Path(example("kernels", "relu", "ok.py")).read_text())
    host = tmp_path / "host_work.py"
    host.write_text(HOST_WORK)
    off = _kernel(tmp_path, "cupti_off.py", CUPTI_OFF)
    slow_reference = _kernel(tmp_path, "slow_reference.py", SLOW_REFERENCE)
    spin_side = tmp_path / "spin_side.py"
    spin_side.write_text(SPIN_SIDE)
    # STRICT's two timed runs are too few for GPU figures: twenty, after five warm-ups.
    args = [{"2": "20", "0": "5"}.get(a, a) if STRICT[i - 1] in ("--timed-runs", "--warmup")
            else a for i, a in enumerate(STRICT)]
    p = cli.run("eval", "--device", device, "--json", *args, "--task",
                example("tasks", "relu.py"), "--kernel", str(honest), "--kernel", str(host),
                "--kernel", off, "--kernel", str(spin_side), "--kernel", slow_reference,
                timeout=900)
    results = _results(p.stdout)
    r = results["honest.py"]
    assert (r["verdict"], r["scope"]) == ("correct", "gpu"), r
    assert r["speedup"] and r["speedup_call"], r
    # The host's work lies between the call's first GPU work and its last: it gains nothing.
    r = results["host_work.py"]
    assert r["verdict"] == "correct" and r["scope"] == "gpu", r
    assert r["speedup"] < 1 and r["speedup"] <= 1.2 * r["speedup_call"], r
    # Records switched off: no GPU figure is made up; the call's runs are compared, and said.
    r = results["cupti_off.py"]
    assert r["scope"] == "call" or r["verdict"] != "correct", r
    if r["verdict"] == "correct":
        assert any("GPU work" in f or "GPU timeline" in f for f in r["findings"]), r["findings"]
    # Run during the head start's spin, before the window: the trace rejects the escape, or the
    # GPU time is the kernel's own and gains nothing on the honest kernel.
    r = results["spin_side.py"]
    assert r["verdict"] != "correct" or r["speedup"] <= 1.2 * results["honest.py"]["speedup"], r

    # The reference slowed beside the candidate: its method put back and the candidate
    # rejected; were that missed, compared by its clean timing, and said.
    r = results["slow_reference.py"]
    assert (r["verdict"], r["check"]) == ("rejected", "patching") or (
        r["speedup"] <= 1.2 * results["honest.py"]["speedup"]
        and any("ran slower beside the candidate" in f for f in r["findings"])), r
    # An honest kernel's reference runs as fast beside it as in the clean process.
    assert not any("ran slower" in f for f in results["honest.py"]["findings"]), results["honest.py"]
