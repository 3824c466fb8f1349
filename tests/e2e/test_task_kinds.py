"""FlashInfer-Trace definitions and TritonBench-G operators through `adaexplore eval`: the task
file says its kind, a definition is evaluated on every workload and its result combines them, and
a broken task is a task_error while the batch goes on."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from conftest import Cli, example

FAST = ["--trials", "2", "--timed-runs", "3", "--warmup", "1", "--no-cache", "--timeout", "120"]


def test_a_definition_is_judged_on_all_its_workloads(cli: Cli, tmp_path: Path) -> None:
    solutions = Path(example("flashinfer", "solutions"))
    bad = Path(example("flashinfer", "bad"))
    kernels = [solutions / "rmsnorm_h64_triton.json", solutions / "rmsnorm_h64_triton.py",
               solutions / "rmsnorm_h64_dps.json", solutions / "rmsnorm_h64_no_weight.py",
               bad / "rmsnorm_h64_bad_entry.json", bad / "rmsnorm_h64_bad_signature.json"]
    traces = tmp_path / "traces.jsonl"
    args = ["--task", example("flashinfer", "definitions", "rmsnorm", "rmsnorm_h64.json"), *FAST,
            "--traces", str(traces)]
    for k in kernels:
        args += ["--kernel", str(k)]
    code, results = cli.eval_json(*args)
    assert code == 0
    for name in ("rmsnorm_h64_triton.json", "rmsnorm_h64_triton.py", "rmsnorm_h64_dps.json"):
        r = results[name]
        assert r["verdict"] == "correct", (name, r["reason"], r["error"][-2000:])
        assert "correct on all 3 workload(s)" in r["reason"]
        assert r["speedup"] is not None
    wrong = results["rmsnorm_h64_no_weight.py"]
    assert wrong["verdict"] == "incorrect"
    assert "workload 1/3 (batch_size=1)" in wrong["reason"] and "3 of 3 workloads" in wrong["reason"]
    entry = results["rmsnorm_h64_bad_entry.json"]
    assert entry["verdict"] == "compile_error" and "spec.entry_point" in entry["reason"]
    signature = results["rmsnorm_h64_bad_signature.json"]
    assert signature["verdict"] == "compile_error" and "signature" in signature["reason"]

    # One FlashInfer Trace per candidate and workload, valid under flashinfer-bench's own model.
    from flashinfer_bench.data import Trace

    lines = [Trace.model_validate_json(line) for line in traces.read_text().splitlines()]
    assert len(lines) == 6 * 3
    by_solution: dict[str, list[str]] = {}
    for t in lines:
        by_solution.setdefault(t.solution, []).append(t.evaluation.status.value)
    assert by_solution["rmsnorm_h64_triton"] == ["PASSED"] * 6  # The .json's name and the .py's.
    assert by_solution["rmsnorm_h64_no_weight"] == ["INCORRECT_NUMERICAL"] * 3
    assert by_solution["rmsnorm_h64_bad_entry"] == ["COMPILE_ERROR"] * 3
    passed = next(t for t in lines if t.evaluation.status.value == "PASSED")
    assert passed.definition == "rmsnorm_h64" and passed.workload.uuid == "rms64-b1"
    assert passed.evaluation.performance.speedup_factor > 0


def test_flashinfers_own_kernel_is_the_expert_baseline_where_it_imports(
        cli: Cli, tmp_path: Path) -> None:
    """A stand-in flashinfer package (python/tests/fake_flashinfer) on the user's PYTHONPATH: the
    worker finds it, times its rmsnorm beside the candidate on every workload, and the result
    gives the speedup over it; without it, a note says why there is none."""
    definition = example("flashinfer", "definitions", "rmsnorm", "rmsnorm_h64.json")
    kernel = example("flashinfer", "solutions", "rmsnorm_h64_triton.py")
    _, without = cli.eval_json("--task", definition, "--kernel", kernel, *FAST)
    r = without["rmsnorm_h64_triton.py"]
    assert r["verdict"] == "correct" and r["speedup_expert"] is None and r["expert"] == ""
    assert any("expert baseline flashinfer.norm.rmsnorm unavailable" in n
               for n in r["details"]["notes"]), r["details"]["notes"]

    fake = Path(__file__).resolve().parents[2] / "python" / "tests" / "fake_flashinfer"
    cli.env["PYTHONPATH"] = str(fake)
    _, timed = cli.eval_json("--task", definition, "--kernel", kernel, *FAST)
    r = timed["rmsnorm_h64_triton.py"]
    assert r["verdict"] == "correct", r["reason"]
    assert r["expert"] == "flashinfer.norm.rmsnorm" and r["speedup_expert"] > 0
    assert "over flashinfer.norm.rmsnorm" in r["reason"]
    rows = r["details"]["workloads"]
    assert len(rows) == 3 and all(w["speedup_expert"] > 0 for w in rows)
    assert all(w["expert"]["runs"] == 3 for w in rows)
    human = cli.run("eval", "--device", "cpu", "--task", definition, "--kernel", kernel, *FAST,
                    "--no-expert-baseline")
    assert human.returncode == 0 and "over flashinfer" not in human.stdout, human.stdout


def test_a_batch_of_every_kind_goes_on_past_broken_tasks(cli: Cli, tmp_path: Path) -> None:
    # A dataset layout: <root>/definitions/<folder>/<name>.json, <root>/workloads/<op>/<name>.jsonl.
    tasks, kernels = tmp_path / "definitions" / "mixed", tmp_path / "kernels"
    tasks.mkdir(parents=True)
    (tmp_path / "workloads" / "gemm").mkdir(parents=True)
    shutil.copy(example("flashinfer", "workloads", "gemm", "gemm_n16_k32.jsonl"),
                tmp_path / "workloads" / "gemm")
    for source in (example("flashinfer", "definitions", "gemm", "gemm_n16_k32.json"),
                   example("flashinfer", "bad", "rmsnorm_bad_axis.json"),
                   example("tritonbench", "scale_add.py"),
                   example("tritonbench", "scale_add_no_separator.py")):
        shutil.copy(source, tasks)
    for task, kernel in (("gemm_n16_k32", example("flashinfer", "solutions",
                                                  "gemm_n16_k32_triton.py")),
                         ("rmsnorm_bad_axis", example("flashinfer", "solutions",
                                                      "rmsnorm_h64_triton.py")),
                         ("scale_add", example("tritonbench", "scale_add_candidate.py")),
                         ("scale_add_no_separator",
                          example("tritonbench", "scale_add_candidate.py"))):
        (kernels / task).mkdir(parents=True)
        shutil.copy(kernel, kernels / task / f"{task}_k.py")
    code, results = cli.eval_json("--tasks-dir", str(tasks), "--kernels-dir", str(kernels), *FAST)
    assert code == 1  # Some candidates could not be judged (their tasks are broken); all answered.
    assert len(results) == 4
    assert results["rmsnorm_bad_axis_k.py"]["verdict"] == "task_error"
    assert "inputs.weight.shape" in results["rmsnorm_bad_axis_k.py"]["reason"]
    assert results["scale_add_no_separator_k.py"]["verdict"] == "task_error"
    assert "separator" in results["scale_add_no_separator_k.py"]["reason"]
    assert results["scale_add_k.py"]["verdict"] == "correct", results["scale_add_k.py"]["reason"]
    gemm = results["gemm_n16_k32_k.py"]
    assert gemm["verdict"] == "correct", gemm["reason"]
    assert "all 3 workload(s)" in gemm["reason"]


def test_tritonbench_problems_by_the_releases_numbers(cli: Cli, tmp_path: Path) -> None:
    suite = tmp_path / "tritonbench-g"
    (suite / "tasks").mkdir(parents=True)
    shutil.copy(example("tritonbench", "scale_add.py"), suite / "tasks")
    shutil.copy(example("tritonbench", "scale_add_no_separator.py"), suite / "tasks")
    (suite / "TritonBench_G_v1.index.json").write_text(json.dumps(
        [{"file": "scale_add.py", "adaexplore_problem_id": 1},
         {"file": "scale_add_no_separator.py", "adaexplore_problem_id": 2}]))
    kernels = tmp_path / "kernels" / "scale_add"
    kernels.mkdir(parents=True)
    shutil.copy(example("tritonbench", "scale_add_candidate.py"), kernels)
    shutil.copy(example("tritonbench", "scale_add.py"), kernels / "own_code.py")
    problem = ["--suite", "tritonbench-g", "--suite-dir", str(suite)]
    code, results = cli.eval_json(*problem, "--problem", "1-2", "--kernels-dir",
                                  str(tmp_path / "kernels"), *FAST)
    assert code == 1, results  # Problem 2 has none: said, and not a clean exit.
    assert set(results) == {"scale_add_candidate.py", "own_code.py",
                            "missing:scale_add_no_separator"}
    assert {results[k]["verdict"] for k in ("scale_add_candidate.py", "own_code.py")} == \
        {"correct"}
    assert "no kernels (looked for scale_add_no_separator/" in \
        results["missing:scale_add_no_separator"]["reason"]
    code, results = cli.eval_json(*problem, "--problem", "1", "--kernel",
                                  example("tritonbench", "scale_add_wrong.py"), *FAST)
    assert results["scale_add_wrong.py"]["verdict"] == "incorrect"
    for bad, words in ((["--problem", "3"], "problems are 1 to 2"),
                       (["--problem", "2-1"], "backwards")):
        p = cli.run("eval", "--device", "cpu", *problem, *bad, "--kernel",
                    example("tritonbench", "scale_add.py"))
        assert p.returncode == 2 and words in p.stderr, (p.returncode, p.stderr)


def test_kernelbench_problems_by_level_and_number(cli: Cli, tmp_path: Path) -> None:
    """--level N --problem IDS, as a KernelBench user addresses problems: levelN/<id>_*.py of the
    suite folder (--suite-dir; ../shared/data/kernelbench by default)."""
    suite = tmp_path / "kb"
    (suite / "level1").mkdir(parents=True)
    shutil.copy(example("tasks", "relu.py"), suite / "level1" / "19_ReLU.py")
    shutil.copy(example("tasks", "softmax.py"), suite / "level1" / "23_Softmax.py")
    level = ["--level", "1", "--suite-dir", str(suite)]
    kb_results = tmp_path / "eval_results.json"
    code, results = cli.eval_json(*level, "--problem", "19",
                                  "--kernel", example("kernels", "relu", "ok.py"),
                                  "--kernel", example("kernels", "relu", "wrong_values.py"),
                                  "--kernelbench-results", str(kb_results), *FAST)
    assert code == 0 and results["ok.py"]["verdict"] == "correct", results
    assert results["ok.py"]["task"] == "19_ReLU"
    # KernelBench's own result file: problem id -> samples, in its field names.
    [ok, wrong] = json.loads(kb_results.read_text())["19"]
    assert (ok["sample_id"], ok["compiled"], ok["correctness"]) == (0, True, True)
    assert ok["runtime"] == ok["runtime_stats"]["mean"] > 0
    timed = results["ok.py"]["timing"]["candidate"]
    assert ok["runtime_stats"]["num_trials"] == timed["runs"] and ok["runtime_stats"]["hardware"]
    assert (wrong["sample_id"], wrong["compiled"], wrong["correctness"]) == (1, True, False)
    assert wrong["runtime"] == -1.0 and wrong["metadata"]["correctness_issue"]
    for bad, words in ((["--problem", "20"], "KernelBench level 1 has no problem 20: its problems "
                                             "are 19 to 23"),
                       (["--level", "2", "--problem", "1"], "level2"),
                       ([], "--problem is missing")):
        args = [*level, *bad] if bad[:1] != ["--level"] else [*bad, "--suite-dir", str(suite)]
        p = cli.run("eval", "--device", "cpu", *args, "--kernel",
                    example("kernels", "relu", "ok.py"))
        assert p.returncode == 2 and words in p.stderr, (bad, p.returncode, p.stderr)


def test_kernelbench_layouts_a_missing_problem_and_an_unreadable_file(cli: Cli,
                                                                      tmp_path: Path) -> None:
    """KernelBench's flat level_L_problem_P_sample_S_kernel.py files are read beside a folder
    per task; a problem asked for without kernels gets its line, its empty entry in KernelBench's
    result file and exit 1; a file that is not UTF-8 is that file's verdict, the rest go on."""
    suite = tmp_path / "kb"
    (suite / "level1").mkdir(parents=True)
    shutil.copy(example("tasks", "relu.py"), suite / "level1" / "19_ReLU.py")
    shutil.copy(example("tasks", "softmax.py"), suite / "level1" / "23_Softmax.py")
    kernels = tmp_path / "kernels"
    kernels.mkdir()
    shutil.copy(example("kernels", "relu", "ok.py"), kernels / "level_1_problem_19_sample_0_kernel.py")
    (kernels / "level_1_problem_19_sample_1_kernel.py").write_bytes(b"x = '\xff'\n")
    kb_results = tmp_path / "eval_results.json"
    level = ["--level", "1", "--suite-dir", str(suite), "--kernels-dir", str(kernels)]
    code, results = cli.eval_json(*level, "--problem", "19,23",
                                  "--kernelbench-results", str(kb_results), *FAST)
    assert code == 1, results
    assert results["level_1_problem_19_sample_0_kernel.py"]["verdict"] == "correct"
    bad = results["level_1_problem_19_sample_1_kernel.py"]
    assert bad["verdict"] == "compile_error" and "is not UTF-8" in bad["reason"], bad
    assert results["missing:23_Softmax"]["missing"] is True
    written = json.loads(kb_results.read_text())
    assert written["23"] == []
    assert [s["correctness"] for s in written["19"]] == [True, False]
    # The terminal form says it too, and sums it up.
    p = cli.run("eval", "--device", "cpu", *level, "--problem", "19,23", *FAST)
    assert p.returncode == 1
    assert "23_Softmax  no kernels (looked for 23_Softmax/, 23_Softmax.py and " \
        "level_1_problem_23_sample_*_kernel.py in" in p.stdout, p.stdout
    assert "1 problem(s) had no kernels: 23_Softmax" in p.stdout, p.stdout


def test_wrong_paths_are_refused_before_anything_is_evaluated(cli: Cli, tmp_path: Path) -> None:
    task, kernel = example("tasks", "relu.py"), example("kernels", "relu", "ok.py")
    for args, words in (
            (["--task", str(tmp_path), "--kernel", kernel], "is a folder: give one task file"),
            (["--task", task, "--kernel", str(tmp_path)], "is a folder: use --kernel-dir"),
            (["--task", task, "--kernel", kernel, "--kernelbench-results",
              str(tmp_path / "nowhere" / "r.json")], "there is no folder"),
            (["--task", task, "--kernel", kernel, "--traces", str(tmp_path)],
             "--traces " + str(tmp_path) + " is a folder")):
        started = time.monotonic()
        p = cli.run("eval", "--device", "cpu", *args)
        assert p.returncode == 2 and words in p.stderr, (args, p.returncode, p.stderr)
        assert time.monotonic() - started < 20  # Refused before any worker started.
    helped = cli.run("eval", "--help").stdout
    assert "strict (default), paper, reference or kernelbench" in helped, helped


def test_a_definitions_workloads_can_be_chosen(cli: Cli, tmp_path: Path) -> None:
    """--workloads: the first N, a range, or uuids; an unknown one is refused before anything
    runs, naming what the definition has."""
    task = example("flashinfer", "definitions", "gemm", "gemm_n16_k32.json")
    kernel = example("flashinfer", "solutions", "gemm_n16_k32_triton.py")
    for spec, count in (("2", 2), ("2-3", 2), ("gemm-m5", 1)):
        code, results = cli.eval_json("--task", task, "--kernel", kernel, "--workloads", spec,
                                      *FAST)
        r = results["gemm_n16_k32_triton.py"]
        assert code == 0 and r["verdict"] == "correct", (spec, r["reason"])
        assert f"correct on all {count} workload(s)" in r["reason"], (spec, r["reason"])
    p = cli.run("eval", "--device", "cpu", "--task", task, "--kernel", kernel, "--workloads",
                "gemm-m999")
    assert p.returncode == 2, p.stderr
    assert "gemm_n16_k32 has no workload 'gemm-m999' (its 3 workload(s): positions 1-3, uuids " \
        "gemm-m1, gemm-m5" in p.stderr, p.stderr


def test_a_definitions_progress_and_failing_workloads_are_shown(cli: Cli, tmp_path: Path) -> None:
    """Each workload's verdict is a line on stderr as it comes, on a pipe too; on the CPU a note
    says first that workloads can take minutes; -v lists the workloads that failed."""
    task = example("flashinfer", "definitions", "gemm", "gemm_n16_k32.json")
    good = Path(example("flashinfer", "solutions", "gemm_n16_k32_triton.py")).read_text()
    kernel = tmp_path / "wrong_at_m5.py"
    kernel.write_text(good + "\n\n_run = run\n\n\ndef run(A, B):\n    C = _run(A, B)\n"
                      "    return C * 2 if A.shape[0] == 5 else C\n")
    p = cli.run("eval", "--device", "cpu", "--task", task, "--kernel", str(kernel), "-v", *FAST)
    assert p.returncode == 0, p.stderr
    assert "3 workload(s) of FlashInfer-Trace definitions to judge in Triton's interpreter on " \
        "the CPU" in p.stderr and "--workloads 2" in p.stderr, p.stderr
    lines = [line for line in p.stderr.splitlines() if "] workload " in line]
    assert len(lines) == 3, p.stderr
    assert any("workload 2/3 (M=5)  incorrect" in line for line in lines), lines
    assert sum("  correct" in line for line in lines) == 2, lines
    assert "    workload 2/3 (M=5): incorrect: " in p.stdout, p.stdout
    assert "workload 1/3" not in p.stdout and "workload 3/3" not in p.stdout

    # With --json: a "workload" event for each, and progress counted in workloads.
    p = cli.run("eval", "--device", "cpu", "--task", task, "--kernel", str(kernel), "--json",
                *FAST)
    events = [json.loads(line) for line in p.stderr.splitlines() if line.startswith("{")]
    workloads = [e for e in events if e.get("event") == "workload"]
    assert sorted(e["workload"] for e in workloads) == [1, 2, 3]
    assert {e["label"]: e["verdict"] for e in workloads}["M=5"] == "incorrect"
    last = [e for e in events if e.get("event") == "progress"][-1]
    assert (last["units_done"], last["units_total"], last["workloads_failed"]) == (3, 3, 1), last


def test_traces_are_written_as_results_come_and_kept_when_interrupted(cli: Cli,
                                                                     tmp_path: Path) -> None:
    """`eval --traces` wrote its file at the end only: interrupted, nothing."""
    import signal
    import subprocess

    traces = tmp_path / "traces.jsonl"
    solutions = Path(example("flashinfer", "solutions"))
    args = [cli.binary, "eval", "--task",
            example("flashinfer", "definitions", "rmsnorm", "rmsnorm_h64.json"), *FAST,
            "--slots", "1", "--traces", str(traces), "--kernel",
            str(solutions / "rmsnorm_h64_triton.py"), "--kernel", str(tmp_path / "hang.py")]
    # The second candidate hangs in its first workload: the first one's traces are all there is.
    (tmp_path / "hang.py").write_text((solutions / "rmsnorm_h64_triton.py").read_text()
                                      + "\nimport time\ntime.sleep(600)\n")
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=cli.env, cwd=cli.tmp)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and (not traces.exists()
                                           or len(traces.read_text().splitlines()) < 3):
        time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=120)
    lines = traces.read_text().splitlines()
    assert len(lines) == 3, lines  # One per workload of the finished candidate.
    assert all(json.loads(line)["solution"] for line in lines)
