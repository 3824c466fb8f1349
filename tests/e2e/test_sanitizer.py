"""compute-sanitizer end to end: `eval --sanitize` in real processes, in the candidate's sandbox,
with the worker's stand-in for the tool (python/tests/fake_sanitizer: the real command line and
output form, an error where the kernel's source asks for one). A kernel the tool finds errors in
keeps its verdict and speedup and gets the finding; a clean one does not; the runs are cached
apart from the result; a machine without the tool says it once and runs none."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import Cli, example

ROOT = Path(__file__).resolve().parents[2]
FAKE = ROOT / "python" / "tests" / "fake_sanitizer"
FAST = ["--trials", "2", "--timed-runs", "3", "--warmup", "1", "--timeout", "120"]


def _with_the_tool(cli: Cli) -> None:
    cli.env["PATH"] = f"{FAKE}:{os.environ['PATH']}"


def test_eval_sanitize_marks_the_kernel_the_tool_finds_errors_in(cli: Cli, tmp_path: Path) -> None:
    _with_the_tool(cli)
    oob = tmp_path / "reads_past_end.py"
    oob.write_text(Path(example("kernels", "relu", "ok.py")).read_text()
                   + "\n# FAKE_SANITIZER_OOB\n")
    task = example("tasks", "relu.py")
    args = ["--task", task, "--kernel", example("kernels", "relu", "ok.py"), "--kernel", str(oob),
            "--kernel", example("kernels", "relu", "wrong_values.py"), "--sanitize", *FAST]
    code, results = cli.eval_json(*args)
    assert code == 0
    honest, bad = results["ok.py"], results["reads_past_end.py"]
    assert honest["verdict"] == "correct", honest["reason"]
    assert [(c["tool"], c["outcome"]) for c in honest["sanitizer"]] == [
        ("memcheck", "clean"), ("racecheck", "clean")]
    assert not any(f.startswith("compute-sanitizer") for f in honest["findings"])
    assert bad["verdict"] == "correct" and bad["speedup"] is not None, bad["reason"]
    assert bad["sanitizer"][0]["outcome"] == "errors" and bad["sanitizer"][0]["errors"] == 2
    marks = [f for f in bad["findings"] if f.startswith("compute-sanitizer")]
    assert marks == [marks[0]] and marks[0].startswith(
        "compute-sanitizer memcheck found 2 errors: Invalid __global__ read of size 4 bytes")
    # An incorrect kernel is not run under the tool.
    assert results["wrong_values.py"]["sanitizer"] == []

    # The runs are cached apart: the same evaluation again runs no tool, and says the same.
    again = cli.run("eval", "--device", "cpu", *args)
    assert again.returncode == 0, again.stderr
    assert "compute-sanitizer memcheck found 2 errors" in again.stdout, again.stdout

    # The tool's choice and limit are the user's.
    code, results = cli.eval_json("--task", task, "--kernel", str(oob), "--sanitize",
                                  "--sanitizer-tools", "racecheck", "--no-cache", *FAST)
    assert [c["tool"] for c in results["reads_past_end.py"]["sanitizer"]] == ["racecheck"]
    bad_tools = cli.run("eval", "--device", "cpu", "--task", task, "--kernel", str(oob),
                        "--sanitize", "--sanitizer-tools", "memcheck,leakcheck")
    assert bad_tools.returncode != 0 and "--sanitizer-tools" in bad_tools.stderr, bad_tools.stderr


def test_without_the_tool_eval_sanitize_says_so_once_and_runs_none(cli: Cli) -> None:
    cli.env["PATH"] = "/usr/bin:/bin"
    cli.env.pop("CUDA_HOME", None)
    if Path("/usr/local/cuda/bin/compute-sanitizer").exists():
        pytest.skip("this machine has compute-sanitizer where the worker looks for it")
    p = cli.run("eval", "--device", "cpu", "--json", "--task", example("tasks", "relu.py"),
                "--kernel", example("kernels", "relu", "ok.py"), "--sanitize", "--no-cache",
                *FAST)
    assert p.returncode == 0, p.stderr
    assert p.stderr.count("compute-sanitizer is not run") == 1, p.stderr
    assert '"outcome":"not_run"' in p.stdout.replace(" ", ""), p.stdout
