"""One autotuning choice per kernel in a job (autotune_share.py), on a stand-in for Triton's
Autotuner that records when it benchmarks: the CPU's interpreter takes the first config, so a
choice that depends on timing cannot be made here. The kernels are functions in files, as
Triton's autotuner holds them (`base_fn`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, Callable

import pytest

from adaexplore_worker.integrity import autotune_share

CONFIGS = ["BLOCK: 64, SPLIT_K: 1", "BLOCK: 128, SPLIT_K: 4"]
KERNEL = "def matmul_dequant(a, b, c, n):\n    return n\n"


class _Tuner:
    """Triton's Autotuner.run in small: benchmark on a new key, keep the fastest config."""

    def __init__(self, fn: Callable[..., Any], configs: list[str], fastest: int) -> None:
        self.base_fn, self.configs, self.fastest = fn, configs, fastest
        self.cache: dict[tuple[Any, ...], str] = {}
        self.benchmarked = 0

    def run(self, n: int, dtype: str) -> str:
        key = (n, dtype)
        if key not in self.cache:
            self.benchmarked += 1
            self.cache[key] = self.configs[self.fastest]
        return self.cache[key]


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(autotune_share, "_CHOICES", {})
    monkeypatch.setattr(autotune_share, "_TAKEN", [])
    autotune_share.install(_Tuner)


def kernel(folder: Path, file: str, source: str = KERNEL,
           name: str = "matmul_dequant") -> Callable[..., Any]:
    path = folder / file
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"kernel_{file[:-3]}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def test_the_same_kernel_takes_the_choice_made_before_it_and_does_not_benchmark(
        tmp_path: Path) -> None:
    operator = _Tuner(kernel(tmp_path, "op.py"), CONFIGS, fastest=1)
    assert operator.run(4096, "torch.float16") == CONFIGS[1]
    # The candidate's copy of the operator would have timed the other config as the fastest.
    copy = _Tuner(kernel(tmp_path, "candidate.py"), CONFIGS, fastest=0)
    assert copy.run(4096, "torch.float16") == CONFIGS[1]
    assert copy.benchmarked == 0
    taken = autotune_share.taken_in(str(tmp_path / "candidate.py"))
    assert [t["kernel"] for t in taken] == ["matmul_dequant"]
    assert taken[0]["chosen"] == CONFIGS[1] and taken[0]["configs"] == 2
    assert autotune_share.taken_in(str(tmp_path / "op.py")) == []
    # Another tuning key is the copy's own choice.
    assert copy.run(8192, "torch.float16") == CONFIGS[0]
    assert copy.benchmarked == 1


@pytest.mark.parametrize("change", ["source", "configs", "name"])
def test_a_changed_kernel_tunes_itself(change: str, tmp_path: Path) -> None:
    _Tuner(kernel(tmp_path, "op.py"), CONFIGS, fastest=1).run(4096, "f16")
    source = {"source": KERNEL.replace("return n", "return n + 0"),
              "name": KERNEL.replace("matmul_dequant", "matmul_dequant_v2")}.get(change, KERNEL)
    fn = kernel(tmp_path, "candidate.py", source,
                "matmul_dequant_v2" if change == "name" else "matmul_dequant")
    configs = CONFIGS + ["BLOCK: 256, SPLIT_K: 1"] if change == "configs" else CONFIGS
    changed = _Tuner(fn, configs, fastest=0)
    assert changed.run(4096, "f16") == configs[0]
    assert changed.benchmarked == 1
    assert autotune_share.taken_in(str(tmp_path / "candidate.py")) == []


def test_choices_travel_with_the_reference_cache(tmp_path: Path) -> None:
    _Tuner(kernel(tmp_path, "op.py"), CONFIGS, fastest=1).run(4096, "f16")
    saved = autotune_share.choices()
    autotune_share._CHOICES.clear()  # A later job on the same worker: a fresh process.
    autotune_share.seed(saved)
    copy = _Tuner(kernel(tmp_path, "candidate.py"), CONFIGS, fastest=0)
    assert copy.run(4096, "f16") == CONFIGS[1]
    assert copy.benchmarked == 0


def test_a_kernel_without_a_source_file_tunes_itself() -> None:
    namespace: dict[str, Any] = {}
    exec(KERNEL, namespace)  # noqa: S102 - no file behind it: no source to compare.
    _Tuner(namespace["matmul_dequant"], CONFIGS, fastest=1).run(4096, "f16")
    alone = _Tuner(namespace["matmul_dequant"], CONFIGS, fastest=0)
    assert alone.run(4096, "f16") == CONFIGS[0]
    assert autotune_share.choices() == {}


def test_installing_twice_wraps_once() -> None:
    wrapped = _Tuner.run
    autotune_share.install(_Tuner)
    assert _Tuner.run is wrapped
    assert getattr(_Tuner.run, "__wrapped__", None) is not None
