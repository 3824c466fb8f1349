"""Every verdict, and every bad input the harness must survive, in real processes."""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from pathlib import Path

from conftest import Cli, example

# Kernel file -> (verdict, a phrase the reason must contain).
RELU_EXPECTED = {
    "ok.py": ("correct", "matches the reference"),
    "prints.py": ("correct", "matches the reference"),
    "wrong_values.py": ("incorrect", "elements outside tolerance"),
    "wrong_tail.py": ("incorrect", "NaN/Inf"),
    "returns_input.py": ("rejected", "shares storage with an input"),
    "syntax_error.py": ("compile_error", "SyntaxError"),
    "no_model_new.py": ("compile_error", "defines no class ModelNew"),
    "bad_signature.py": ("runtime_error", "ModelNew(*get_init_inputs()) raised TypeError"),
    "forward_raises.py": ("runtime_error", "forward raised ValueError"),
    "os_exit.py": ("crash", "exit code 3"),
    "segfault.py": ("crash", "SIGSEGV"),
    "hang.py": ("timeout", "no result within 20 s"),
    "memory_hog.py": ("runtime_error", "host memory above the limit"),
    # os.kill of the harness: rejected by the static checks before any of it runs.
    "kill_worker.py": ("rejected", "static check 'harness_access'"),
    # Hidden from the static checks: in the sandbox its kill reaches nothing but its own init.
    "kill_worker_unseen.py": ("incorrect", "elements outside tolerance"),
    "forge_result.py": ("rejected", "static check 'harness_access'"),
    "forge_result_unseen.py": ("rejected", "result messages"),
}


def test_without_the_sandbox_a_candidate_that_kills_its_worker_is_a_crash(cli: Cli) -> None:
    """--no-sandbox: the kill reaches the worker; the C++ side runs the candidate again alone on
    a restarted worker and calls it `crash` without hanging the run."""
    code, results = cli.eval_json("--task", example("tasks", "relu.py"), "--timeout", "20",
                                  "--timed-runs", "3", "--warmup", "1", "--no-cache",
                                  "--no-sandbox", "--kernel",
                                  example("bad", "relu", "kill_worker_unseen.py"))
    assert code == 0
    result = results["kill_worker_unseen.py"]
    assert result["verdict"] == "crash" and "died 2 times" in result["reason"], result


def test_every_verdict_and_bad_input_then_a_normal_candidate(cli: Cli, tmp_path: Path) -> None:
    kernels = [example("kernels", "relu", k) for k in RELU_EXPECTED if
               (Path(example("kernels", "relu", k))).exists()]
    kernels += [example("bad", "relu", k) for k in RELU_EXPECTED if
                (Path(example("bad", "relu", k))).exists()]
    assert len(kernels) == len(RELU_EXPECTED)
    # After all of that, a fresh correct candidate (new content, so not deduplicated) still works.
    after = tmp_path / "ok_after.py"
    after.write_text(Path(example("kernels", "relu", "ok.py")).read_text() + "\n# after\n")
    args = ["--task", example("tasks", "relu.py"), "--timeout", "20", "--memory-limit-mb", "1200",
            "--timed-runs", "3", "--warmup", "1", "--no-cache"]
    for k in kernels + [str(after)]:
        args += ["--kernel", k]
    code, results = cli.eval_json(*args)
    assert code == 0
    for name, (verdict, phrase) in RELU_EXPECTED.items():
        r = results[name]
        assert r["verdict"] == verdict, (name, r["verdict"], r["reason"], r["error"][-2000:])
        assert phrase in r["reason"], (name, r["reason"])
        assert (r["speedup"] is None) == (verdict != "correct"), name
    assert results["ok_after.py"]["verdict"] == "correct"
    # Output is captured and attached; a forged protocol line in stdout changes nothing.
    assert "forward called with (16, 1000)" in results["prints.py"]["stdout"]
    assert '"id":"forged"' in results["prints.py"]["stdout"]
    assert "candidate says hello on stderr" in results["prints.py"]["stderr"]
    # Errors keep their full text (the skill memory is built from it).
    assert "Traceback" in results["forward_raises.py"]["error"]
    assert "Fatal Python error: Segmentation fault" in results["segfault.py"]["error"]


def test_correct_kernels_report_errors_and_timing_figures(cli: Cli) -> None:
    code, results = cli.eval_json("--task", example("tasks", "gemm_relu.py"), "--kernel-dir",
                                  example("kernels", "gemm_relu"), "--timed-runs", "5",
                                  "--no-cache")
    assert code == 0
    ok = results["ok.py"]
    assert ok["verdict"] == "correct"
    assert ok["max_abs_err"] is not None and ok["max_abs_err"] < 1e-4
    timing = ok["timing"]
    assert timing["meaningful"] is False  # CPU interpreter.
    assert timing["candidate"]["runs"] == 5 and timing["reference"]["runs"] == 5
    # --timed-runs below the adaptive minimum: all of them, and the result says why it stopped.
    assert ok["details"]["timing"] == {"warmup_runs": 10, "timed_runs": 5, "max_timed_runs": 5,
                                       "stopped": "runs"}
    assert timing["candidate"]["median_halfwidth"] > 0
    for key in ("median_ms", "trimmed_mean_ms", "std_ms", "cv"):
        assert timing["candidate"][key] is not None
    assert ok["speedup"] > 0
    assert results["missing_bias.py"]["verdict"] == "incorrect"


def test_batch_form_over_folders_and_human_output(cli: Cli) -> None:
    p = cli.run("eval", "--device", "cpu", "--tasks-dir", example("tasks"), "--kernels-dir",
                example("kernels"), "--timed-runs", "3", "--no-cache")
    assert p.returncode == 0, p.stderr + p.stdout
    lines = p.stdout.splitlines()
    assert any("[softmax]  correct" in line for line in lines), p.stdout
    assert any("fp16_math.py  [softmax]  incorrect" in line for line in lines), p.stdout
    assert any("[log_softplus]  correct" in line for line in lines), p.stdout
    assert "candidates:" in lines[-1]


def test_strict_fails_half_precision_math_that_the_paper_profile_accepts(cli: Cli) -> None:
    kernel = example("kernels", "softmax", "fp16_math.py")
    _, strict = cli.eval_json("--task", example("tasks", "softmax.py"), "--kernel", kernel,
                              "--no-cache", "--timed-runs", "3")
    _, paper = cli.eval_json("--task", example("tasks", "softmax.py"), "--kernel", kernel,
                             "--profile", "paper", "--no-cache", "--timed-runs", "3",
                             "--warmup", "1")
    assert strict["fp16_math.py"]["verdict"] == "incorrect"
    assert paper["fp16_math.py"]["verdict"] == "correct"
    assert paper["fp16_math.py"]["timing"]["statistic"] == "trimmed_mean"


def test_half_precision_runs_with_its_own_tolerance(cli: Cli) -> None:
    # Triton's CPU interpreter handles fp16 and bf16 loads and stores (not bf16 dots).
    for precision, task_name in (("fp16", "softmax"), ("bf16", "relu")):
        code, results = cli.eval_json("--task", example("tasks", f"{task_name}.py"), "--kernel",
                                      example("kernels", task_name, "ok.py"), "--precision",
                                      precision, "--no-cache", "--timed-runs", "3")
        r = results["ok.py"]
        assert r["verdict"] == "correct", (precision, r["reason"])
        trials = r["details"]["trials"]
        assert len(trials) == 5 and all(t["passed"] for t in trials)
        assert trials[1]["distribution"] == "normal" and trials[0]["max_abs_err"] is not None


def test_broken_task_files_are_task_errors(cli: Cli) -> None:
    kernel = example("kernels", "relu", "ok.py")
    expected = {"syntax_error.py": "SyntaxError", "no_model.py": "no class Model",
                "inputs_raise.py": "dataset not found"}
    for task, phrase in expected.items():
        code, results = cli.eval_json("--task", example("bad_tasks", task), "--kernel", kernel,
                                      "--no-cache")
        assert code == 1, task
        r = results["ok.py"]
        assert r["verdict"] == "task_error", (task, r)
        assert phrase in r["reason"], (task, r["reason"])


def test_reference_falls_back_to_task_inputs_where_a_distribution_is_invalid(cli: Cli) -> None:
    code, results = cli.eval_json("--task", example("tasks", "log_softplus.py"), "--kernel",
                                  example("kernels", "log_softplus", "ok.py"), "--no-cache",
                                  "--timed-runs", "3")
    r = results["ok.py"]
    assert r["verdict"] == "correct", r["reason"]


def test_missing_files_and_bad_flags_are_usage_errors(cli: Cli, tmp_path: Path) -> None:
    p = cli.run("eval", "--device", "cpu", "--task", "/nonexistent/task.py", "--kernel",
                example("kernels", "relu", "ok.py"))
    assert p.returncode == 2
    assert "no such file: /nonexistent/task.py" in p.stderr
    p = cli.run("eval", "--device", "cpu", "--task", example("tasks", "relu.py"))
    assert p.returncode == 2 and "no kernels to evaluate" in p.stderr
    p = cli.run("eval", "--profile", "lenient", "--task", example("tasks", "relu.py"),
                "--kernel", example("kernels", "relu", "ok.py"))
    assert p.returncode == 2 and "unknown evaluation profile 'lenient'" in p.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text("[eval]\ntrails = 3\n")
    p = cli.run("eval", "--config", str(bad), "--task", example("tasks", "relu.py"), "--kernel",
                example("kernels", "relu", "ok.py"))
    assert p.returncode == 2 and "unknown key 'trails'" in p.stderr


def test_results_are_cached_by_content(cli: Cli, tmp_path: Path) -> None:
    cache = str(tmp_path / "c.sqlite")
    args = ("--task", example("tasks", "relu.py"), "--kernel", example("kernels", "relu", "ok.py"),
            "--kernel", example("kernels", "relu", "wrong_values.py"), "--cache", cache,
            "--timed-runs", "3")
    _, first = cli.eval_json(*args)
    _, second = cli.eval_json(*args)
    assert not first["ok.py"]["cached"] and second["ok.py"]["cached"]
    assert second["ok.py"]["verdict"] == "correct"
    assert second["wrong_values.py"]["verdict"] == "incorrect"
    assert second["ok.py"]["cache_key"] == first["ok.py"]["cache_key"]
    # A change to the candidate is a different key.
    changed = tmp_path / "ok.py"
    changed.write_text(Path(example("kernels", "relu", "ok.py")).read_text() + "\n")
    _, third = cli.eval_json("--task", example("tasks", "relu.py"), "--kernel", str(changed),
                             "--cache", cache, "--timed-runs", "3")
    assert not third["ok.py"]["cached"]


def _worker_processes(marker: str) -> set[int]:
    """Worker processes whose command line holds `marker` (this test's own scratch folder, so
    other runs on the machine do not count)."""
    out = subprocess.run(["pgrep", "-f", f"adaexplore_worker.*{marker}"], capture_output=True,
                         text=True).stdout
    return {int(x) for x in out.split()}


def test_interrupt_stops_the_run_and_leaves_no_process(cli: Cli) -> None:
    scratch = cli.tmp / "scratch"
    scratch.mkdir()
    env = dict(cli.env, TMPDIR=str(scratch))
    p = subprocess.Popen([cli.binary, "eval", "--device", "cpu", "--no-cache", "--task",
                          example("tasks", "relu.py"), "--kernel", example("bad", "relu",
                                                                           "hang.py"),
                          "--timeout", "300"], env=env, cwd=cli.tmp,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _worker_processes(str(scratch)):
        time.sleep(0.2)
    assert _worker_processes(str(scratch)), "the worker never started"
    time.sleep(3)  # Let it reach the hanging forward pass.
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    time.sleep(1)
    assert not _worker_processes(str(scratch))
    # The hanging child was in its own process group; it must be gone too.
    out = subprocess.run(["pgrep", "-f", "adaexplore_worker"], capture_output=True, text=True)
    for pid in out.stdout.split():
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes() if Path(f"/proc/{pid}").exists() else b""
        assert str(scratch).encode() not in cmdline


def test_cpp_load_inline_kernels_build_and_run(cli: Cli) -> None:
    if shutil.which("g++") is None:
        import pytest
        pytest.skip("no C++ compiler")
    code, results = cli.eval_json("--task", example("tasks", "relu.py"), "--kernel",
                                  example("cpp", "relu", "cpp_inline.py"), "--kernel",
                                  example("bad", "relu", "cpp_compile_error.py"), "--no-cache",
                                  "--timed-runs", "3", "--timeout", "400", timeout=900)
    assert results["cpp_inline.py"]["verdict"] == "correct", results["cpp_inline.py"]["reason"]
    broken = results["cpp_compile_error.py"]
    assert broken["verdict"] == "compile_error"
    assert "undefined_symbol" in broken["error"]


def test_a_cuda_kernel_on_the_cpu_needs_a_gpu(cli: Cli) -> None:
    """Not a compile error (PyTorch's build would fail with "list index out of range"): the
    harness cannot judge a CUDA kernel here, and says why."""
    code, results = cli.eval_json("--task", example("tasks", "relu.py"), "--kernel",
                                  example("cpp", "relu", "cuda_inline.py"), "--no-cache")
    r = results["cuda_inline.py"]
    assert code == 1 and r["verdict"] == "error", (code, r["verdict"], r["reason"])
    assert r["reason"].startswith("needs a GPU"), r["reason"]


def test_a_process_that_dies_before_the_candidate_runs_is_the_harnesss_error(
        cli: Cli, tmp_path: Path) -> None:
    """The evaluation process dies in the reference phase (as one out of host memory did on a
    24 GB machine): the verdict is `error`, the harness's, never the kernel's `crash`, and it is
    not cached, so the next evaluation runs again."""
    task = tmp_path / "dies_in_reference.py"
    task.write_text(Path(example("tasks", "relu.py")).read_text().replace(
        "        return torch.relu(x)", "        import os\n        os._exit(70)"))
    assert "os._exit(70)" in task.read_text()
    cache = str(tmp_path / "c.sqlite")
    args = ("--task", str(task), "--kernel", example("kernels", "relu", "ok.py"), "--cache", cache)
    _, first = cli.eval_json(*args)
    _, second = cli.eval_json(*args)
    assert first["ok.py"]["verdict"] == "error", first["ok.py"]["reason"]
    assert "the harness's failure, not the kernel's" in first["ok.py"]["reason"]
    assert second["ok.py"]["verdict"] == "error" and not second["ok.py"]["cached"]
