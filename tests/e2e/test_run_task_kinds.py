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
    assert "def run(hidden_states, weight):" in (tmp_path / "out" / "rmsnorm_h64.py").read_text()

    # The finished run resumes from the database alone (the task kept as a definition).
    p = cli.run("run", "--resume", "--db", str(tmp_path / "run.sqlite"), "--out",
                str(tmp_path / "out2"), "--json", "--device", "cpu", "--llm", "openai:scripted",
                timeout=300)
    assert p.returncode == 0, p.stderr
    [task] = json.loads(p.stdout)["tasks"]
    assert task["best"]["verdict"] == "correct"
