"""`adaexplore run --in-flight K` end to end on the CPU, with a scripted LLM that takes its time:
a task's steps overlap, each is recorded once under its own number with what it was planned
with; a run killed with SIGKILL at K = 4 resumes to exactly its budget; `--max-tasks` keeps the
tasks' steps apart."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

from conftest import Cli, example, kill_once_recorded, llm_server
from scripted_llm import Script

FAST = ["--device", "cpu", "--timed-runs", "2", "--warmup", "0", "--trials", "2",
        "--timeout", "120"]


def _plans(db: Path, task: str = "relu") -> list[tuple[int, dict]]:
    """(node, plan) of each recorded step of `task`, in node order."""
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT node, result FROM nodes WHERE task = ? ORDER BY node",
                         (task,)).fetchall()
    return [(node, json.loads(result)["plan"]) for node, result in rows]


def test_steps_of_one_task_overlap_and_each_is_recorded_once(cli: Cli, tmp_path: Path) -> None:
    script = Script(delay_s=1.5)
    db = tmp_path / "run.sqlite"
    with llm_server(cli, script.handle, "sk-in-flight"):
        p = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", "openai:scripted",
                    "--steps", "6", "--in-flight", "3", "--db", str(db), "--out",
                    str(tmp_path / "out"), "--json", *FAST, timeout=900)
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout)
    assert summary["status"] == "finished" and summary["tasks"][0]["steps"] == 6
    plans = _plans(db)
    assert [node for node, _ in plans] == list(range(1, 7))
    assert sorted(plan["step"] for _, plan in plans) == list(range(1, 7))
    # Planned while others ran: each says which, and what it knew.
    overlapped = [plan for _, plan in plans if plan["in_flight"]]
    assert overlapped, plans
    for _, plan in plans:
        assert len(plan["in_flight"]) <= 2 and 0 <= plan["seen"] < 6
        assert plan["step"] not in {other["step"] for other in plan["in_flight"]}
    assert script.most_at_once >= 2
    # The first steps were planned together from the empty tree: large steps from the root.
    first = [plan for _, plan in plans if plan["seen"] == 0]
    assert len(first) >= 2
    assert all(o["parent"] == 0 and o["move"] == "large_step" for p in first
               for o in p["in_flight"])


def test_a_run_killed_with_four_steps_in_flight_resumes_to_exactly_its_budget(
        cli: Cli, tmp_path: Path) -> None:
    script = Script(delay_s=1.0)
    db = tmp_path / "run.sqlite"
    args = ["run", "--task", example("tasks", "relu.py"), "--llm", "openai:scripted",
            "--steps", "10", "--in-flight", "4", "--db", str(db), "--out",
            str(tmp_path / "out"), "--json", *FAST]
    with llm_server(cli, script.handle, "sk-in-flight"):
        proc = subprocess.Popen([cli.binary, *args], env=cli.env, cwd=cli.tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        kill_once_recorded(proc, db, 3)
        before = _plans(db)
        assert 3 <= len(before) < 10
        p = cli.run("run", "--resume", "--db", str(db), "--out", str(tmp_path / "out"),
                    "--json", *FAST, timeout=900)
    assert p.returncode == 0, p.stderr
    after = _plans(db)
    assert [node for node, _ in after] == list(range(1, 11))  # None lost, none twice.
    assert after[:len(before)] == before
    # Every step number once: those in flight at the kill were planned again under theirs.
    assert sorted(plan["step"] for _, plan in after) == list(range(1, 11))
    assert json.loads(p.stdout)["tasks"][0]["steps"] == 10
    assert any(plan["in_flight"] for _, plan in after[len(before):])  # K = 4 kept on resume.


def test_max_tasks_keeps_one_task_in_flight_at_a_time(cli: Cli, tmp_path: Path) -> None:
    script = Script(delay_s=0.5)
    db = tmp_path / "run.sqlite"
    with llm_server(cli, script.handle, "sk-in-flight"):
        p = cli.run("run", "--task", example("tasks", "relu.py"), "--task",
                    example("tasks", "min_clamp.py"), "--llm", "openai:scripted", "--steps", "3",
                    "--in-flight", "2", "--max-tasks", "1", "--db", str(db), "--out",
                    str(tmp_path / "out"), "--json", *FAST, timeout=900)
    assert p.returncode == 0, p.stderr
    assert [t["steps"] for t in json.loads(p.stdout)["tasks"]] == [3, 3]
    with sqlite3.connect(db) as c:
        order = [task for (task,) in c.execute("SELECT task FROM nodes ORDER BY rowid")]
    assert order == ["relu"] * 3 + ["min_clamp"] * 3, order
    assert script.most_at_once <= 2
