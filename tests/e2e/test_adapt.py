"""`adaexplore adapt` and `adaexplore memory` end to end on the CPU, with a scripted LLM on
loopback: tasks synthesised (one kept, one failing its check, one duplicate, one more kept), the
search run on them in two waves, failures clustered and turned into rules (one rejected for
naming the program's own constant), the memory updated between the waves and its rule injected
into the second wave's prompts, provenance kept, and the memory exported and listed."""

from __future__ import annotations

import json
import sqlite3
import threading
from email.message import Message
from pathlib import Path

import pytest

from conftest import ROOT, Cli, example, llm_server

FAST = ["--device", "cpu", "--timed-runs", "2", "--warmup", "0", "--trials", "2",
        "--timeout", "120", "--no-cache"]
RULE = "You cannot call tl.float32 as a function inside a Triton kernel."
TASK = (ROOT / "examples" / "tasks" / "relu.py").read_text()
GOOD = (ROOT / "examples" / "kernels" / "relu" / "ok.py").read_text()
CALLS_DTYPE = GOOD.replace("x = tl.load(x_ptr + offsets, mask=mask)",
                           "x = tl.float32(tl.load(x_ptr + offsets, mask=mask))")
NAMES_CONSTANT = GOOD.replace("tl.maximum(x, 0.0)", "tl.maximum(x, PADDING_LEFT)").replace(
    "@triton.jit", "PADDING_LEFT = undefined_helper()\n\n@triton.jit")


class Script:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.roles: list[str] = []
        self.synthesised = 0
        self.proposals: dict[str, int] = {}

    def reply(self, _path: str, _headers: Message, body: dict) -> str:
        prompt = body["messages"][-1]["content"]
        with self.lock:
            if "Write a new PyTorch program" in prompt:
                self.roles.append("synthesiser")
                self.synthesised += 1
                variants = {
                    1: TASK,
                    2: TASK.replace("return torch.relu(x)", "raise ValueError('no')"),
                    3: TASK.replace("import torch\n", "# The same task again.\nimport torch\n"),
                }
                other = TASK.replace("torch.relu(x)", "torch.relu(x + 0.0)")
                task = variants.get(self.synthesised, other)
                return f"```python\n{task}```\n"
            if "Turn it into one rule" in prompt:
                self.roles.append("rule_writer")
                if "not callable" in prompt:
                    return json.dumps({"rule": RULE})
                if "PADDING_LEFT" in prompt:
                    return json.dumps({"rule": "You cannot use PADDING_LEFT before defining it."})
                return json.dumps({"rule": "no guidance"})
            if "Decide whether a new rule" in prompt:
                self.roles.append("judge")
                return json.dumps({"is_duplicate": True, "matched_index": 1, "confidence": 0.9})
            if "Improve the latest" in prompt:
                self.roles.append("tuner")
                return "No edits from me."
            self.roles.append("proposer")
            task = prompt.split("# Task: ", 1)[-1].split(".py", 1)[0]
            n = self.proposals[task] = self.proposals.get(task, 0) + 1
            kernel = {1: CALLS_DTYPE, 2: NAMES_CONSTANT}.get(n, GOOD)
            return f"```python\n{kernel}```\n"


@pytest.fixture()
def scripted(cli: Cli):
    script = Script()
    with llm_server(cli, script.reply, "sk-adapt-test"):
        yield script


def test_adapt_learns_rules_between_waves(cli: Cli, scripted: Script, tmp_path: Path) -> None:
    memory = tmp_path / "memory.sqlite"
    examples = tmp_path / "level1"
    examples.mkdir()
    for i, name in enumerate(["relu.py", "softmax.py", "log_softplus.py"], start=1):
        (examples / f"{i}_{name}").write_text((ROOT / "examples" / "tasks" / name).read_text())
    p = cli.run("adapt", "--llm", "openai:scripted", "--memory", str(memory), "--synthesize", "2",
                "--examples", str(examples), "--steps", "3", "--parallel", "1", "--min-count", "1",
                "--check-timeout", "120", "--json", "--log-level", "info", *FAST, timeout=900)
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout)
    # Both waves ran in one search session: the evaluation workers were started once.
    assert p.stderr.count("workers: 1 x cpu") == 1, p.stderr
    assert p.stderr.count("wave ") >= 2
    events = [json.loads(line) for line in p.stderr.splitlines() if line.startswith("{")]
    assert [(e["wave"], e["waves"]) for e in events if e["event"] == "wave_start"] == [(1, 2),
                                                                                      (2, 2)]
    assert [e["wave"] for e in events if e["event"] == "wave_done"] == [1, 2]
    assert len([e for e in events if e["event"] == "step"]) == 6  # 2 waves x 1 task x 3 steps.

    synthesis = summary["synthesis"]
    assert synthesis["calls"] == 4
    assert len(synthesis["kept"]) == 2
    assert synthesis["invalid"] == 1 and synthesis["duplicates"] == 1
    assert any("ValueError" in problem for problem in synthesis["problems"])
    assert all(Path(path).exists() for path in synthesis["kept"])

    first, second = summary["waves"]
    assert first["rules_in_prompts"] == 0
    # Wave 1: the dtype error (a runtime error in the interpreter) and the undefined helper.
    assert first["failures"] >= 2 and first["clusters"] == first["writer_calls"]
    assert first["added"] == 1 and first["rejected"] == 1
    # Wave 2 saw the rule, and its identical rule reinforced it without a judge.
    assert second["rules_in_prompts"] == 1
    assert second["reinforced"] == 1 and second["added"] == 0
    assert summary["rules"] == 1

    with sqlite3.connect(f"{memory}.runs.sqlite") as c:
        prompts = [m for (m,) in c.execute(
            "SELECT messages FROM llm_calls WHERE run_id = ? AND role = 'proposer'",
            (second["run"],))]
        first_prompts = [m for (m,) in c.execute(
            "SELECT messages FROM llm_calls WHERE run_id = ? AND role = 'proposer'",
            (first["run"],))]
    assert prompts and all(RULE in m for m in prompts)
    assert first_prompts and not any(RULE in m for m in first_prompts)

    # The memory commands see it all, provenance included.
    listed = cli.run("memory", "list", "--memory", str(memory), "--json")
    [rule] = json.loads(listed.stdout)
    assert rule["text"] == RULE and rule["count"] == 2
    shown = json.loads(cli.run("memory", "show", "--memory", str(memory), str(rule["id"]),
                               "--json").stdout)
    # The synthesis calls are in flight together, so which file numbers are kept depends on the
    # order their replies arrive in; the rule's support is the two kept tasks, whichever they are.
    assert {s["task"] for s in shown["support"]} == {Path(k).stem for k in synthesis["kept"]}
    assert all(s["model"] == "openai:scripted" for s in shown["support"])
    assert "TypeError" in shown["support"][0]["signature"]
    exported = cli.run("memory", "export", "--memory", str(memory)).stdout
    assert exported == f"{RULE}||2\n"
    assert cli.run("memory", "list", "--memory", str(memory), "--min-count", "3").stdout == ""


def test_memory_import_feeds_a_run(cli: Cli, tmp_path: Path) -> None:
    memory = tmp_path / "m.sqlite"
    rules = tmp_path / "rules.txt"
    rules.write_text("You cannot do a.||4.0\nYou cannot do b.||1\nbroken line||x\n")
    p = cli.run("memory", "import", "--memory", str(memory), str(rules))
    assert p.returncode == 0, p.stderr
    assert "2 new" in p.stdout and "1 skipped" in p.stdout
    stats = json.loads(cli.run("memory", "stats", "--memory", str(memory), "--json").stdout)
    assert stats["rules"] == 2 and stats["rules_at_3"] == 1
    # A run reads the database like the text file: only rules at the threshold.
    recording = example("recordings", "relu.jsonl")
    run = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", f"replay:{recording}",
                  "--steps", "1", "--memory", str(memory), "--db", str(tmp_path / "r.sqlite"),
                  "--out", str(tmp_path / "out"), "--json", *FAST, timeout=600)
    assert run.returncode == 0, run.stderr
    with sqlite3.connect(tmp_path / "r.sqlite") as c:
        (messages,) = c.execute("SELECT messages FROM llm_calls LIMIT 1").fetchone()
    assert "You cannot do a." in messages and "You cannot do b." not in messages
