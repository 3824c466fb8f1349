"""Other sizes (strict's --size-checks): a kernel right only at the task's own sizes passes its
trials there and is marked at the other size sets, in real processes on KernelBench's own tasks
(../shared/data) in Triton's interpreter; an honest kernel is not, and a task whose reference
cannot change size says so."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Cli, example

KERNELBENCH = Path(__file__).resolve().parents[3] / "shared" / "data" / "kernelbench"
RELU = KERNELBENCH / "level1" / "19_ReLU.py"

# --shrink 64 makes 19_ReLU 64 x 6144 on this machine; the sets vary those sizes.
FAST = ["--trials", "2", "--timed-runs", "3", "--warmup", "1", "--no-cache", "--timeout", "120",
        "--shrink", "64"]
OWN_SIZE = 64 * 6144


def _variant(tmp_path: Path, name: str, old: str, new: str) -> str:
    source = Path(example("kernels", "relu", "ok.py")).read_text()
    assert old in source
    path = tmp_path / name
    path.write_text(source.replace(old, new))
    return str(path)


@pytest.mark.skipif(not RELU.is_file(), reason="../shared/data absent")
def test_a_kernel_right_only_at_the_tasks_sizes_is_marked(cli: Cli, tmp_path: Path) -> None:
    baked = _variant(tmp_path, "baked_numel.py", "n = x.numel()", f"n = {OWN_SIZE}")
    # No mask, and a grid that drops the last partial block: right when 1024 divides the size.
    unmasked = _variant(tmp_path, "whole_blocks_only.py", "triton.cdiv(n, 1024)", "n // 1024")
    code, results = cli.eval_json("--task", str(RELU), "--kernel",
                                  example("kernels", "relu", "ok.py"), "--kernel", baked,
                                  "--kernel", unmasked, *FAST)
    assert code == 0
    honest = results["ok.py"]
    assert honest["verdict"] == "correct", honest["reason"]
    assert [(c["set"], c["outcome"]) for c in honest["size_checks"]] == [
        ("smaller", "passed"), ("uneven", "passed")]
    assert honest["size_checks"][1]["sizes"] == {"batch_size": 65, "dim": 6145}
    assert not any("sizes" in f for f in honest["findings"]), honest["findings"]
    for name in ("baked_numel.py", "whole_blocks_only.py"):
        r = results[name]
        # Its verdict and speedup stand; the mark names where it is wrong.
        assert r["verdict"] == "correct" and r["speedup"] is not None, (name, r["reason"])
        assert "wrong" in [c["outcome"] for c in r["size_checks"]], (name, r["size_checks"])
        marks = [f for f in r["findings"] if f.startswith("correct at the task's sizes only")]
        assert marks and "batch_size=" in marks[0], (name, r["findings"])

    p = cli.run("eval", "--device", "cpu", "--task", str(RELU), "--kernel", unmasked, *FAST)
    assert p.returncode == 0, p.stderr
    assert "correct at the task's sizes only: wrong at batch_size=" in p.stdout, p.stdout

    # Off: the task's own sizes alone, as the harnesses that reproduce a release judge.
    code, results = cli.eval_json("--task", str(RELU), "--kernel", unmasked, "--no-size-checks",
                                  *FAST)
    assert code == 0 and results["whole_blocks_only.py"]["size_checks"] == []


@pytest.mark.skipif(not RELU.is_file(), reason="../shared/data absent")
def test_a_later_candidate_checks_the_other_sizes_in_its_own_job(cli: Cli,
                                                                 tmp_path: Path) -> None:
    # The result cache keeps the sizes the task ran at: the next run's jobs carry the sets.
    cached = [a for a in FAST if a != "--no-cache"]
    code, first = cli.eval_json("--task", str(RELU), "--kernel",
                                example("kernels", "relu", "ok.py"), *cached)
    assert code == 0 and first["ok.py"]["verdict"] == "correct", first["ok.py"]["reason"]
    assert [c["in_job"] for c in first["ok.py"]["size_checks"]] == [False, False]

    honest = _variant(tmp_path, "honest.py", "n = x.numel()", "n = x.numel()  # the same")
    baked = _variant(tmp_path, "baked_numel.py", "n = x.numel()", f"n = {OWN_SIZE}")
    unmasked = _variant(tmp_path, "whole_blocks_only.py", "triton.cdiv(n, 1024)", "n // 1024")
    code, later = cli.eval_json("--task", str(RELU), "--kernel", honest, "--kernel", baked,
                                "--kernel", unmasked, *cached)
    assert code == 0
    r = later["honest.py"]
    assert r["verdict"] == "correct", r["reason"]
    assert [(c["set"], c["outcome"], c["in_job"]) for c in r["size_checks"]] == [
        ("smaller", "passed", True), ("uneven", "passed", True)], r["size_checks"]
    assert r["size_checks"][1]["sizes"] == {"batch_size": 65, "dim": 6145}
    for name in ("baked_numel.py", "whole_blocks_only.py"):
        r = later[name]
        assert r["verdict"] == "correct" and r["speedup"] is not None, (name, r["reason"])
        assert "wrong" in [c["outcome"] for c in r["size_checks"]], (name, r["size_checks"])
        marks = [f for f in r["findings"] if f.startswith("correct at the task's sizes only")]
        assert marks and "batch_size=" in marks[0], (name, r["findings"])
    # Its grid drops the last partial block: wrong values there, in its own job.
    assert all(c["in_job"] for c in later["whole_blocks_only.py"]["size_checks"])
    # 64 * 6144 elements written into a smaller tensor: in the interpreter its process may die at
    # the smaller set, and with it the job's verdict at its own sizes; then it is evaluated again
    # without the sets and each set gets a job of its own, where the crash is the set's.
    baked_checks = later["baked_numel.py"]["size_checks"]
    in_job = {c["in_job"] for c in baked_checks}
    assert len(in_job) == 1, baked_checks
    if in_job == {False}:
        assert baked_checks[0]["detail"].startswith("crash: "), baked_checks


def test_a_task_whose_reference_cannot_change_size_says_so(cli: Cli, tmp_path: Path) -> None:
    task = tmp_path / "fixed_view.py"
    task.write_text(Path(example("tasks", "relu.py")).read_text().replace(
        "return torch.relu(x)", "return torch.relu(x).view(16, 1000)"))
    assert "view(16, 1000)" in task.read_text()
    code, results = cli.eval_json("--task", str(task), "--kernel",
                                  example("kernels", "relu", "ok.py"), *FAST[:-2])
    r = results["ok.py"]
    assert code == 0 and r["verdict"] == "correct", r["reason"]
    assert {c["outcome"] for c in r["size_checks"]} == {"not_applicable"}, r["size_checks"]
    assert any(f.startswith("the task's sizes cannot vary") for f in r["findings"]), r["findings"]
