"""FlashInfer-Trace definitions and TritonBench-G operators evaluated by a real worker (CPU mode,
Triton's interpreter): the loader adapts each to the harness's one task shape, and every bad
input is a clear error that names its file and field."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, PYTHON_DIR, Worker

FI = EXAMPLES / "flashinfer"
TB = EXAMPLES / "tritonbench"
SHARED = Path(os.environ.get("ADAEXPLORE_SHARED", EXAMPLES.parents[1] / "shared")) / "data"


# What the C++ side sends for these kinds (EvalProfile::ToJobOptions): the task's own dtypes and
# inputs, FlashInfer-Bench's tolerance.
KIND_OPTIONS = {"reference_precision": "task", "distributions": ["task"],
                "integrity_distributions": [], "criterion": "allclose", "atol": 1e-2,
                "rtol": 1e-2, "revalidate_atol": 2e-2, "revalidate_rtol": 2e-2}


def workloads(definition: Path) -> list[dict[str, Any]]:
    op = definition.parent.name
    path = definition.parents[2] / "workloads" / op / (definition.stem + ".jsonl")
    return [json.loads(line)["workload"] for line in path.read_text().splitlines() if line]


def fi(worker: Worker, definition: Path, candidate: Path, workload: dict[str, Any] | None = None,
       data_root: str = "") -> dict[str, Any]:
    workload = workload if workload is not None else workloads(definition)[1]
    return worker.evaluate(str(definition), str(candidate), kind="flashinfer", workload=workload,
                           data_root=data_root or str(definition.parents[2]), timeout_s=120,
                           options=KIND_OPTIONS)


def passed(facts: dict[str, Any]) -> bool:
    return facts["status"] == "ok" and bool(facts["trials"]) and all(
        t["passed"] for t in facts["trials"])


RMS = FI / "definitions" / "rmsnorm" / "rmsnorm_h64.json"
GEMM = FI / "definitions" / "gemm" / "gemm_n16_k32.json"


@pytest.mark.parametrize("candidate", ["rmsnorm_h64_triton.py", "rmsnorm_h64_triton.json",
                                       "rmsnorm_h64_dps.json"])
def test_flashinfer_solutions_and_python_files_are_correct(worker: Worker, candidate: str) -> None:
    facts = fi(worker, RMS, FI / "solutions" / candidate)
    assert passed(facts), facts.get("error") or facts["trials"]
    assert facts["reference"]["outputs"] == [{"shape": [3, 64], "dtype": "bfloat16"}]
    assert facts["timing"]["candidate_ms"]


def test_flashinfer_gemm_is_correct_and_a_wrong_solution_is_not(worker: Worker) -> None:
    assert passed(fi(worker, GEMM, FI / "solutions" / "gemm_n16_k32_triton.py",
                     workloads(GEMM)[2]))
    wrong = fi(worker, RMS, FI / "solutions" / "rmsnorm_h64_no_weight.py")
    assert wrong["status"] == "ok" and not wrong["trials"][0]["passed"]


def test_flashinfer_bad_inputs_name_their_file_and_field(worker: Worker, tmp_path: Path) -> None:
    ok = FI / "solutions" / "rmsnorm_h64_triton.py"
    facts = fi(worker, FI / "bad" / "rmsnorm_bad_axis.json", ok, workloads(RMS)[0], str(FI))
    assert facts["status"] == "task_error"
    assert "rmsnorm_bad_axis.json" in facts["error"]["message"]
    assert "hiden_size" in facts["error"]["message"], facts["error"]["message"]

    blob = dict(workloads(RMS)[0], uuid="blob-missing")
    blob["inputs"] = dict(blob["inputs"], weight={"type": "safetensors",
                                                  "path": "./blob/missing.safetensors",
                                                  "tensor_key": "weight"})
    facts = fi(worker, RMS, ok, blob)
    assert facts["status"] == "task_error"
    assert "inputs.weight.path" in facts["error"]["message"]
    assert "missing.safetensors" in facts["error"]["message"]

    unknown = dict(workloads(RMS)[0], uuid="axis-unknown", axes={"batch_size": 2, "seq": 3})
    facts = fi(worker, RMS, ok, unknown)
    assert facts["status"] == "task_error" and "axes.seq" in facts["error"]["message"]

    for name, words in (("rmsnorm_h64_bad_entry.json", "entry_point"),
                        ("rmsnorm_h64_bad_signature.json", "signature")):
        facts = fi(worker, RMS, FI / "bad" / name)
        assert facts["status"] == "import_error", facts
        assert words in facts["error"]["message"], facts["error"]["message"]


def tb(worker: Worker, task: Path, candidate: Path) -> dict[str, Any]:
    return worker.evaluate(str(task), str(candidate), kind="tritonbench", timeout_s=120,
                           options=KIND_OPTIONS)


def test_tritonbench_operator_own_code_and_a_rewrite_are_correct(worker: Worker) -> None:
    task = TB / "scale_add.py"
    for candidate in (task, TB / "scale_add_candidate.py"):
        facts = tb(worker, task, candidate)
        assert passed(facts), facts.get("error") or facts["trials"]
        assert len(facts["reference"]["outputs"]) == 2
    wrong = tb(worker, task, TB / "scale_add_wrong.py")
    assert wrong["status"] == "ok" and not wrong["trials"][0]["passed"]


def test_tritonbench_file_without_separator_is_a_task_error(worker: Worker) -> None:
    facts = tb(worker, TB / "scale_add_no_separator.py", TB / "scale_add_candidate.py")
    assert facts["status"] == "task_error"
    assert "scale_add_no_separator.py" in facts["error"]["message"]
    assert "separator" in facts["error"]["message"]


@pytest.mark.skipif(not (SHARED / "tritonbench-g").is_dir(), reason="../shared/data absent")
@pytest.mark.parametrize("operator", ["batched_vecmat_mult.py", "cosine_compute.py",
                                      "embedding_triton_kernel.py", "fast_rms_layernorm.py"])
def test_tritonbench_g_operators_with_their_own_code_are_correct(worker: Worker,
                                                                 operator: str) -> None:
    path = SHARED / "tritonbench-g" / "tasks" / operator
    facts = tb(worker, path, path)
    assert passed(facts), facts.get("error") or facts["trials"]


@pytest.mark.skipif(not (SHARED / "flashinfer-trace-v0.1.2").is_dir(),
                    reason="../shared/data absent")
def test_the_synthetic_example_solution_is_correct_on_rmsnorm_h4096(worker: Worker) -> None:
    root = SHARED / "flashinfer-trace-v0.1.2"
    solution = (root / "synthetic" / "solutions" / "rmsnorm" / "rmsnorm_h4096" /
                "adaexplore_example_rmsnorm_h4096.json")
    small = {"uuid": "small", "axes": {"batch_size": 2},
             "inputs": {"hidden_states": {"type": "random"}, "weight": {"type": "random"}}}
    facts = fi(worker, root / "definitions" / "rmsnorm" / "rmsnorm_h4096.json", solution,
               small, str(root))
    assert passed(facts), facts.get("error") or facts["trials"]


def test_a_test_that_returns_nothing_checkable_is_a_task_error(worker: Worker,
                                                               tmp_path: Path) -> None:
    """attention_kernel_aligned's test returns what its operator returns: None (it writes into an
    output argument). There is nothing to judge a candidate on."""
    source = (TB / "scale_add.py").read_text().replace(
        "results['test_case_1'] = scale_add(x, y, 2.0)", "results['test_case_1'] = None").replace(
        "results['test_case_2'] = scale_add(x, y, -0.5)", "results['test_case_2'] = 'done'")
    task = tmp_path / "returns_none.py"
    task.write_text(source)
    facts = tb(worker, task, task)
    assert facts["status"] == "task_error"
    assert "returned no tensors" in facts["error"]["message"]


def test_what_escapes_the_reference_phase_is_the_tasks(worker: Worker, tmp_path: Path) -> None:
    """apply_penalty's reference kernel faulted on the H200 at a synchronize outside the guards;
    the fault came back as the candidate's runtime_error. Whatever escapes before the candidate
    is imported is the task's (here: a test that exits the process)."""
    source = (TB / "scale_add.py").read_text().replace(
        "    results = {}\n", "    results = {}\n    raise SystemExit(3)\n")
    task = tmp_path / "exits.py"
    task.write_text(source)
    facts = tb(worker, task, TB / "scale_add_candidate.py")
    assert facts["status"] == "task_error", facts


# -- the expert baseline: FlashInfer's own kernel, here the fake package in fake_flashinfer/ ------

FUSED = FI / "definitions" / "rmsnorm" / "fused_add_rmsnorm_h64.json"
FAKE_FLASHINFER = Path(__file__).resolve().parent / "fake_flashinfer"


@pytest.fixture(scope="module")
def expert_worker(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("expert")
    # The mode file's folder is on the worker's path, so the sandbox shows it (read-only) to the
    # child that loads the fake expert.
    control = tmp / "control"
    control.mkdir()
    mode = control / "mode"
    w = Worker(tmp, env={"PYTHONPATH": os.pathsep.join((str(PYTHON_DIR), str(FAKE_FLASHINFER),
                                                         str(control))),
                         "FAKE_FLASHINFER_MODE_FILE": str(mode)})
    w.mode = mode  # type: ignore[attr-defined]
    yield w
    w.close()


def with_mode(worker: Worker, mode: str) -> Worker:
    worker.mode.write_text(mode)  # type: ignore[attr-defined]
    return worker


def test_without_flashinfer_there_is_no_expert_baseline_and_a_note_says_why(
        worker: Worker) -> None:
    facts = fi(worker, RMS, FI / "solutions" / "rmsnorm_h64_triton.py")
    assert passed(facts) and facts["timing"]["candidate_ms"]
    assert "expert_ms" not in facts["timing"] and "expert" not in facts
    assert any("expert baseline flashinfer.norm.rmsnorm unavailable: ModuleNotFoundError" in n
               for n in facts["notes"]), facts["notes"]


@pytest.mark.parametrize(("definition", "candidate", "name"), [
    (RMS, "rmsnorm_h64_triton.py", "flashinfer.norm.rmsnorm"),
    (FUSED, "fused_add_rmsnorm_h64.py", "flashinfer.norm.fused_add_rmsnorm")])
def test_flashinfers_kernel_is_timed_beside_the_candidate(expert_worker: Worker, definition: Path,
                                                          candidate: str, name: str) -> None:
    facts = fi(with_mode(expert_worker, ""), definition, FI / "solutions" / candidate,
               workloads(definition)[1])
    assert passed(facts), facts.get("error") or facts["trials"]
    assert facts["expert"]["name"] == name
    assert facts["expert"]["agrees"] is True, facts["expert"]
    timing = facts["timing"]
    assert len(timing["expert_ms"]) == len(timing["candidate_ms"]) == 3
    assert timing["expert_interleaved"] is True  # Timed beside the candidate, as the reference.
    assert all(ms > 0 for ms in timing["expert_ms"])
    assert "expert" in facts["phases"] or "reference.expert" in facts["phases"]


def test_an_expert_that_disagrees_is_said_so_and_one_that_fails_is_a_note(
        expert_worker: Worker) -> None:
    candidate = FI / "solutions" / "rmsnorm_h64_triton.py"
    wrong = fi(with_mode(expert_worker, "wrong"), RMS, candidate)
    assert passed(wrong), "the expert's error is not the candidate's"
    assert wrong["expert"]["agrees"] is False and wrong["expert"]["problem"] == "values"
    assert len(wrong["timing"]["expert_ms"]) == 3
    broken = fi(with_mode(expert_worker, "broken"), RMS, candidate)
    assert passed(broken) and "expert_ms" not in broken["timing"] and "expert" not in broken
    assert any("unavailable: RuntimeError: the fake kernel is broken" in n
               for n in broken["notes"]), broken["notes"]


def test_expert_baseline_off_and_definitions_without_one(expert_worker: Worker) -> None:
    with_mode(expert_worker, "")  # A working expert: what is off is the option.
    off = expert_worker.evaluate(str(RMS), str(FI / "solutions" / "rmsnorm_h64_triton.py"),
                                 kind="flashinfer", workload=workloads(RMS)[1],
                                 data_root=str(RMS.parents[2]), timeout_s=120,
                                 options=dict(KIND_OPTIONS, expert_baseline=False))
    assert passed(off) and "expert_ms" not in off["timing"]
    alone = expert_worker.evaluate(str(RMS), str(FI / "solutions" / "rmsnorm_h64_triton.py"),
                                   kind="flashinfer", workload=workloads(RMS)[1],
                                   data_root=str(RMS.parents[2]), timeout_s=120,
                                   options=dict(KIND_OPTIONS, interleave_reference=False))
    assert passed(alone) and len(alone["timing"]["expert_ms"]) == 3
    assert alone["timing"]["expert_interleaved"] is False
    assert not any("expert" in n for n in off["notes"])
    gemm = fi(with_mode(expert_worker, ""), GEMM, FI / "solutions" / "gemm_n16_k32_triton.py",
              workloads(GEMM)[2])
    assert passed(gemm) and "expert_ms" not in gemm["timing"] and "expert" not in gemm
