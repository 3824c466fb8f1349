"""`adaexplore run` on a FlashInfer-Trace definition: the prompts show the definition and ask for
its entry point, and the kernels the LLM writes are judged on every workload."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from conftest import Cli, example, llm_server

SOLUTION = Path(example("flashinfer", "solutions", "rmsnorm_h64_triton.py")).read_text()
WRONG = Path(example("flashinfer", "solutions", "rmsnorm_h64_no_weight.py")).read_text()


class DefinitionScript:
    """Proposer: the example solution, then a wrong one; reviser: advice; tuner: no edit."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.prompts: list[str] = []

    def handle(self, _path: str, _headers: object, body: dict) -> str:
        user = body["messages"][-1]["content"]
        with self.lock:
            self.prompts.append(user)
            if "Review the implementation" in user:
                return "1. Keep it."
            if "Improve the latest" in user:
                return "No change."
            code = SOLUTION if len(self.prompts) % 2 else WRONG
            return f"```python\n{code}# proposal {len(self.prompts)}\n```\n"


def test_run_searches_a_definition(cli: Cli, tmp_path: Path) -> None:
    script = DefinitionScript()
    definition = example("flashinfer", "definitions", "rmsnorm", "rmsnorm_h64.json")
    with llm_server(cli, script.handle, "sk-fi-test"):
        p = cli.run("run", "--task", definition, "--llm", "openai:scripted", "--steps", "3",
                    "--method", "ps", "--db", str(tmp_path / "run.sqlite"), "--out",
                    str(tmp_path / "out"), "--json", "--device", "cpu", "--trials", "2",
                    "--timed-runs", "3", "--warmup", "1", "--timeout", "120", timeout=900)
    assert p.returncode == 0, p.stderr
    [task] = json.loads(p.stdout)["tasks"]
    assert task["task"] == "rmsnorm_h64" and task["steps"] == 3
    assert task["best"]["verdict"] == "correct", task
    assert task["verdicts"].get("incorrect", 0) >= 1, task["verdicts"]
    first = script.prompts[0]
    assert "# Entry point: run(hidden_states, weight) -> output" in first
    assert "as a Python function `run` (the entry point)" in first
    assert "class ModelNew" not in first.split("## Writing")[0]
    # The best kernel is a Solution FlashInfer-Bench's own model reads, not a bare file.
    from flashinfer_bench.data import Solution, Trace
    best = Solution.model_validate_json((tmp_path / "out" / "rmsnorm_h64.json").read_text())
    assert not (tmp_path / "out" / "rmsnorm_h64.py").exists()
    assert best.definition == "rmsnorm_h64" and best.spec.entry_point == "main.py::run"
    assert best.spec.destination_passing_style is False  # run(hidden_states, weight) returns.
    assert "def run(hidden_states, weight):" in best.sources[0].content

    # export writes FlashInfer-Bench's layout: the Solution and its traces, one per workload.
    exported = tmp_path / "exported"
    p = cli.run("export", str(tmp_path / "run.sqlite"), "--out", str(exported))
    assert p.returncode == 0, p.stderr
    [entry] = json.loads((exported / "index.json").read_text())
    assert entry["file"].startswith("solutions/rmsnorm/rmsnorm_h64/"), entry
    solution = Solution.model_validate_json((exported / entry["file"]).read_text())
    assert solution.sources[0].content == best.sources[0].content
    assert entry["traces"] == "traces/rmsnorm/rmsnorm_h64.jsonl"
    traces = [Trace.model_validate_json(line)
              for line in (exported / entry["traces"]).read_text().splitlines()]
    assert traces and all(t.solution == solution.name for t in traces)
    assert {t.evaluation.status.value for t in traces} == {"PASSED"}
    workloads = (Path(definition).parents[2] / "workloads" / "rmsnorm" / "rmsnorm_h64.jsonl")
    assert len(traces) == len(workloads.read_text().splitlines())

    # eval reads the exported Solution back, and judges it as the run did.
    p = cli.run("eval", "--task", definition, "--kernel", str(exported / entry["file"]),
                "--json", "--device", "cpu", "--trials", "2", "--timed-runs", "3", "--warmup",
                "1", "--timeout", "120", "--no-cache", timeout=600)
    assert p.returncode == 0, p.stderr
    [result] = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    assert result["verdict"] == "correct", result

    # The finished run resumes from the database alone (the task kept as a definition).
    p = cli.run("run", "--resume", "--db", str(tmp_path / "run.sqlite"), "--out",
                str(tmp_path / "out2"), "--json", "--device", "cpu", "--llm", "openai:scripted",
                timeout=300)
    assert p.returncode == 0, p.stderr
    [task] = json.loads(p.stdout)["tasks"]
    assert task["best"]["verdict"] == "correct"


def test_a_run_on_part_of_a_definitions_workloads_says_so_in_its_reports(
        cli: Cli, tmp_path: Path) -> None:
    script = DefinitionScript()
    definition = example("flashinfer", "definitions", "rmsnorm", "rmsnorm_h64.json")
    db = tmp_path / "run.sqlite"
    with llm_server(cli, script.handle, "sk-fi-part"):
        p = cli.run("run", "--task", definition, "--workloads", "1", "--llm", "openai:scripted",
                    "--steps", "1", "--method", "ps", "--db", str(db), "--out",
                    str(tmp_path / "out"), "--device", "cpu", "--trials", "1", "--timed-runs",
                    "2", "--warmup", "0", "--timeout", "120", timeout=600)
    assert p.returncode == 0, p.stderr
    workloads = (Path(definition).parents[2] / "workloads" / "rmsnorm" / "rmsnorm_h64.jsonl")
    total = len(workloads.read_text().splitlines())
    assert total > 1
    report = cli.run("report", str(db), "--json")
    [task] = json.loads(report.stdout)["runs"][0]["tasks"]
    assert (task["workloads"], task["workloads_total"]) == (1, total), task
    assert f"on 1 of its {total} workloads (--workloads): a partial set" in \
        cli.run("report", str(db)).stdout
