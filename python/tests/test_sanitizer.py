"""compute-sanitizer's runs (evaluation/sanitizer.py, sanitized_run.py) with a stand-in for the
tool (fake_sanitizer/compute-sanitizer: the real command line, the real output's form, exit 86
on an error), on real tasks and kernels in Triton's interpreter, in a worker's sandbox. Whether
the real tool finds real errors is the GPU batch's (bench/gpu/sanitizer_cases.sh)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from conftest import Worker, kernel, task

from adaexplore_worker.evaluation import sanitizer

FAKE = Path(__file__).parent / "fake_sanitizer"
TOOL = str(FAKE / "compute-sanitizer")


def _worker(tmp: Path, **kw) -> Worker:
    return Worker(tmp, env={"PATH": f"{FAKE}:{os.environ['PATH']}"}, **kw)


@pytest.fixture(scope="module")
def sanitizing_worker(tmp_path_factory: pytest.TempPathFactory):
    w = _worker(tmp_path_factory.mktemp("sanitizing_worker"))
    yield w
    w.close()


def _variant(tmp: Path, name: str, extra: str) -> Path:
    """examples' correct ReLU kernel with `extra` lines appended (its module's own code)."""
    path = tmp / f"{name}.py"
    path.write_text(Path(kernel("relu", "ok")).read_text() + "\n" + extra + "\n")
    return path


def _sanitize(w: Worker, kernel_path: Path | str, tools: list[str], timeout_s: float = 120
              ) -> dict:
    return w.evaluate(task("relu"), str(kernel_path),
                      options={"sanitize": tools, "sanitize_timeout_s": timeout_s},
                      timeout_s=timeout_s * len(tools) + 60)


def test_the_worker_says_where_the_tool_is_and_which_it_is(sanitizing_worker: Worker,
                                                            worker: Worker) -> None:
    found = sanitizing_worker.hello["compute_sanitizer"]
    assert found["path"] == os.path.realpath(TOOL)
    assert "2099.1.0" in found["version"]
    assert "missing" in worker.hello["compute_sanitizer"] or "path" in worker.hello[
        "compute_sanitizer"]  # The machine's own, where it has one.


def test_a_clean_kernel_runs_once_under_each_tool_with_the_caching_allocator_off(
        sanitizing_worker: Worker) -> None:
    facts = _sanitize(sanitizing_worker, kernel("relu", "ok"), ["memcheck", "racecheck"])
    assert facts["status"] == "ok", facts
    runs = facts["sanitizer"]
    assert [r["tool"] for r in runs] == ["memcheck", "racecheck"]
    for run in runs:
        assert run["ended"] == "clean", run
        assert run["exit_code"] == 0 and run["errors"] == 0 and run["records"] == []
        assert "caching allocator off: True" in run["tail"]
        assert run["wall_s"] > 0
    # No trial, timing or reference: the sanitizer's job is only that.
    assert "trials" not in facts or facts["trials"] == []
    assert "timing" not in facts and "reference" not in facts
    assert "sanitize_probe" in facts["phases"] and "sanitize" in facts["phases"]


def test_errors_the_tool_finds_are_reported_with_their_records(sanitizing_worker: Worker,
                                                                tmp_path: Path) -> None:
    oob = _variant(tmp_path, "oob", "# FAKE_SANITIZER_OOB")
    facts = _sanitize(sanitizing_worker, oob, ["memcheck", "racecheck"])
    memcheck, racecheck = facts["sanitizer"]
    assert memcheck["ended"] == "errors" and memcheck["exit_code"] == sanitizer.ERRORS_EXIT
    assert memcheck["errors"] == 2
    assert memcheck["records"][0] == ("Invalid __global__ read of size 4 bytes at "
                                      "relu_kernel+0x1d0 in relu.py:12")
    assert racecheck["ended"] == "clean"
    race = _variant(tmp_path, "race", "# FAKE_SANITIZER_RACE")
    (run,) = _sanitize(sanitizing_worker, race, ["racecheck"])["sanitizer"]
    assert run["ended"] == "errors" and run["errors"] == 1
    assert run["records"][0].startswith("Error: Race reported between Write access")


def test_lines_the_candidate_prints_cannot_take_the_tools_errors_away(
        sanitizing_worker: Worker, tmp_path: Path) -> None:
    # It prints a clean summary of its own, and exits 0 after its call: the tool's status and
    # its own summary still say what it found.
    forged = _variant(tmp_path, "forged", "\n".join([
        "# FAKE_SANITIZER_OOB",
        "print('========= ERROR SUMMARY: 0 errors', flush=True)"]))
    (run,) = _sanitize(sanitizing_worker, forged, ["memcheck"])["sanitizer"]
    assert run["ended"] == "errors" and run["errors"] == 2


def test_a_call_that_raises_under_the_tool_says_why(sanitizing_worker: Worker,
                                                    tmp_path: Path) -> None:
    raising = _variant(tmp_path, "raising", "\n".join([
        "_forward = ModelNew.forward",
        "def _raise(self, *args):",
        "    raise RuntimeError('not under the sanitizer')",
        "ModelNew.forward = _raise"]))
    (run,) = _sanitize(sanitizing_worker, raising, ["memcheck"])["sanitizer"]
    assert run["ended"] == "target_failed" and run["exit_code"] == sanitizer.TARGET_FAILED
    assert "RuntimeError: not under the sanitizer" in run["tail"]


def test_a_call_that_hangs_under_the_tool_is_stopped_at_its_limit(sanitizing_worker: Worker,
                                                                  tmp_path: Path) -> None:
    hanging = _variant(tmp_path, "hanging", "\n".join([
        "import time",
        "def _hang(self, *args):",
        "    time.sleep(600)",
        "ModelNew.forward = _hang"]))
    started = time.monotonic()
    (run,) = _sanitize(sanitizing_worker, hanging, ["memcheck"], timeout_s=8)["sanitizer"]
    assert run["ended"] == "timed_out"
    assert time.monotonic() - started < 60
    assert 7 < run["wall_s"] < 40


def test_a_candidate_that_kills_the_tool_is_not_taken_for_a_clean_run(
        sanitizing_worker: Worker, tmp_path: Path) -> None:
    killer = _variant(tmp_path, "killer", "\n".join([
        "# FAKE_SANITIZER_OOB",
        "import os, signal",
        "os.kill(os.getppid(), signal.SIGKILL)"]))
    (run,) = _sanitize(sanitizing_worker, killer, ["memcheck"])["sanitizer"]
    assert run["ended"] == "signal" and run["signal"] == 9


def test_the_target_writes_its_own_proc_folder_and_reaches_no_other_process(
        sanitizing_worker: Worker, tmp_path: Path) -> None:
    """A sanitizer job's sandbox lets the namespace's /proc be written (the tool's target is a
    process of its own, and CUDA's start writes its folder); the target narrows that back to
    its own folder before the candidate is imported, and the evaluator is not dumpable: the
    candidate reaches neither the tool's folder nor the evaluator's memory or settings."""
    prober = _variant(tmp_path, "prober", "\n".join([
        "import os",
        "def _try(what, path, flags):",
        "    try:",
        "        os.close(os.open(path, flags))",
        "        print('PROC', what, 'reached', flush=True)",
        "    except OSError as e:",
        "        print('PROC', what, 'held', e.errno, flush=True)",
        "_try('own', '/proc/self/comm', os.O_WRONLY)",
        "_try('tool', f'/proc/{os.getppid()}/comm', os.O_WRONLY)",
        "_try('tool_adj', f'/proc/{os.getppid()}/oom_score_adj', os.O_WRONLY)",
        "evaluator = os.getppid()",
        "with open(f'/proc/{evaluator}/status') as f:",
        "    evaluator = int(next(l for l in f if l.startswith('PPid:')).split()[1])",
        "_try('evaluator', f'/proc/{evaluator}/comm', os.O_WRONLY)",
        "_try('evaluator_mem', f'/proc/{evaluator}/mem', os.O_RDONLY)",
        "_try('evaluator_environ', f'/proc/{evaluator}/environ', os.O_RDONLY)"]))
    (run,) = _sanitize(sanitizing_worker, prober, ["memcheck"])["sanitizer"]
    assert run["ended"] == "clean", run
    seen = dict(line.split()[1:3] for line in run["tail"].splitlines()
                if line.startswith("PROC "))
    assert seen == {"own": "reached", "tool": "held", "tool_adj": "held", "evaluator": "held",
                    "evaluator_mem": "held", "evaluator_environ": "held"}, run["tail"]


def test_a_tool_that_cannot_run_the_harnesss_own_target_is_unusable_for_every_tool(
        tmp_path: Path) -> None:
    """The tool fails on the probe (no candidate code has run): each tool says unusable, never
    a failure of the kernel's, and no tool is started on the candidate after it."""
    unusable = Path(__file__).parent / "fake_sanitizer_unusable"
    w = Worker(tmp_path, env={"PATH": f"{unusable}:{os.environ['PATH']}"})
    try:
        facts = _sanitize(w, kernel("relu", "ok"), ["memcheck", "racecheck"])
    finally:
        w.close()
    assert facts["status"] == "ok", facts
    runs = facts["sanitizer"]
    assert [(r["tool"], r["ended"]) for r in runs] == [("memcheck", "unusable"),
                                                       ("racecheck", "unusable")]
    assert "Error 304" in runs[0]["tail"] and runs[0]["exit_code"] == 255
    # One run only, the probe's: its time is the first tool's, the second's is none.
    assert runs[0]["wall_s"] > 0 and runs[1]["wall_s"] == 0.0
    assert runs[1]["tail"] == runs[0]["tail"]
    # The probe has a phase of its own, and the candidate's phase never began.
    assert "sanitize_probe" in facts["phases"] and "sanitize" not in facts["phases"]


def test_without_the_tool_each_run_says_it_is_missing(worker: Worker) -> None:
    if "path" in worker.hello["compute_sanitizer"]:
        pytest.skip("this machine has compute-sanitizer on its PATH")
    facts = _sanitize(worker, kernel("relu", "ok"), ["memcheck"])
    (run,) = facts["sanitizer"]
    assert run["ended"] == "missing"
    assert "no executable compute-sanitizer" in run["tail"]


def test_find_takes_the_given_path_or_says_why_not(tmp_path: Path) -> None:
    assert sanitizer.find(TOOL)["path"] == os.path.realpath(TOOL)
    plain = tmp_path / "compute-sanitizer"
    plain.write_text("not executable")
    assert "missing" in sanitizer.find(str(plain))
    broken = tmp_path / "broken"
    broken.write_text("#!/nonexistent/interpreter\n")
    broken.chmod(0o755)
    assert "does not run" in sanitizer.find(str(broken))["missing"]


def test_the_output_gives_the_largest_count_and_the_first_records() -> None:
    output = "\n".join([
        "========= COMPUTE-SANITIZER",
        "hello from the candidate",
        "========= Invalid __global__ write of size 2 bytes",
        "=========     at k+0x10 in k.py:3",
        "========= Program hit cudaErrorLaunchFailure (error 719) on CUDA API call",
        "========= ERROR SUMMARY: 0 errors",  # A candidate's forgery...
        "========= ERROR SUMMARY: 7 errors",  # ...beside the tool's own.
    ])
    read = sanitizer.read_output(output)
    assert read["errors"] == 7
    assert read["records"] == ["Invalid __global__ write of size 2 bytes at k+0x10 in k.py:3",
                               "Program hit cudaErrorLaunchFailure (error 719) on CUDA API call"]
    assert sanitizer.read_output("nothing of the tool's")["errors"] is None
    # A count no tool prints (and no integer holds) is not read; warnings are not errors.
    forged = sanitizer.read_output("========= ERROR SUMMARY: 1" + "0" * 30 + " errors\n"
                                   "========= Warning: Race reported between ...")
    assert forged["errors"] is None and forged["records"] == []
    assert sanitizer.read_output("========= RACECHECK SUMMARY: 3 hazards displayed "
                                 "(2 errors, 1 warning)")["errors"] == 2


def test_the_tools_command_line_is_the_real_ones() -> None:
    line = sanitizer.command("memcheck", "/cuda/bin/compute-sanitizer", ["python", "-m", "x"])
    assert line[:3] == ["/cuda/bin/compute-sanitizer", "--tool", "memcheck"]
    assert line[line.index("--error-exitcode") + 1] == "86"
    assert line[line.index("--padding") + 1] == str(sanitizer.PADDING_BYTES)
    assert line[-3:] == ["python", "-m", "x"]
    assert "--padding" not in sanitizer.command("racecheck", "cs", ["t"])
    json.dumps(line)
