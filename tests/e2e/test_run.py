"""`adaexplore run` end to end on the CPU: the real search, prompts, edits, harness and run
database, with a scripted LLM on loopback; then the same run replayed from its recording with no
server and no key; then a run killed with SIGKILL and resumed."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import shutil
import time
from pathlib import Path

import pytest

from conftest import Cli, example, kill_once_recorded, llm_server
from scripted_llm import Script
from openai_stub import Refuse  # noqa: E402 - scripted_llm puts tests/fakes on the path.

FAST = ["--device", "cpu", "--timed-runs", "2", "--warmup", "0", "--trials", "2",
        "--timeout", "120"]


def _nodes(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as c:
        return c.execute("SELECT node, parent, move, verdict FROM nodes ORDER BY node").fetchall()


@pytest.fixture()
def scripted(cli: Cli):
    script = Script()
    with llm_server(cli, script.handle, "sk-run-test"):
        yield script


def test_run_searches_records_and_writes_the_best_kernel(cli: Cli, scripted: Script,
                                                         tmp_path: Path) -> None:
    db, out, recording = tmp_path / "run.sqlite", tmp_path / "out", tmp_path / "llm.jsonl"
    p = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", "openai:scripted",
                "--steps", "8", "--db", str(db), "--out", str(out), "--record", str(recording),
                "--json", *FAST, timeout=900)
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout)
    assert summary["status"] == "finished"
    assert summary["llm_replayed"] is False
    [task] = summary["tasks"]
    assert task["task"] == "relu" and task["steps"] == 8
    assert task["best"]["verdict"] == "correct" and task["best"]["speedup"] > 0
    assert sum(task["verdicts"].values()) == 8
    assert summary["cost"]["calls"] == len(scripted.calls)
    assert "class ModelNew" in (out / "relu.py").read_text()
    assert json.loads((out / "summary.json").read_text())["tasks"][0]["steps"] == 8

    nodes = _nodes(db)
    assert [n[0] for n in nodes] == list(range(1, 9))
    assert nodes[0][1:3] == (0, "large_step")  # The root only takes large steps.
    # Small steps happened, applied the tuner's edit, and were evaluated.
    with sqlite3.connect(db) as c:
        small = c.execute("SELECT kernel FROM nodes WHERE move = 'small_step' AND verdict = "
                          "'correct'").fetchall()
        roles = {r for (r,) in c.execute("SELECT DISTINCT role FROM llm_calls")}
    assert small and any("BLOCK=512)" in k for (k,) in small)
    assert {"proposer", "tuner"} <= roles
    assert "[relu] step 8/8" in p.stderr
    # With --json, progress is JSON lines on stderr too: one per message and status change.
    events = [json.loads(line) for line in p.stderr.splitlines() if line.strip()]  # Nothing else.
    [start] = [e for e in events if e["event"] == "run_start"]
    assert (start["method"], start["tasks"], start["steps"]) == ("adaexplore", 1, 8)
    steps = [e for e in events if e["event"] == "step"]
    assert [e["step"] for e in steps] == list(range(1, 9)) and steps[-1]["task"] == "relu"
    assert {e["verdict"] for e in steps} <= set(task["verdicts"])
    last = [e for e in events if e["event"] == "progress"][-1]
    assert (last["done"], last["total"], last["eta_s"]) == (8, 8, None)
    assert last["tasks"]["relu"]["done"] == 8 and last["elapsed_s"] >= 0

    # The run database reports and exports.
    report = cli.run("report", str(db), "--json")
    assert report.returncode == 0, report.stderr
    [run] = json.loads(report.stdout)["runs"]
    assert run["metrics"]["acc"] == 1.0 and run["metrics"]["steps"] == 8
    assert run["tasks"][0]["speedup"] == pytest.approx(task["best"]["speedup"])
    assert "| adaexplore | 1 | 100% |" in cli.run("report", str(db)).stdout
    assert "| adaexplore | 1 | 100% |" in cli.run("report", "--db", str(db)).stdout
    helped = cli.run("report", "--help").stdout
    assert "REQUIRED" not in helped and helped.count("Run database") == 1, helped
    for command in ("report", "export"):
        missing = cli.run(command, str(tmp_path / "nowhere.sqlite"), "--out", str(tmp_path / "x"))
        assert missing.returncode == 2 and "no run database at" in missing.stderr
        assert not (tmp_path / "nowhere.sqlite").exists()
        bare = cli.run(command, "--out", str(tmp_path / "x"))
        assert bare.returncode == 2 and "needs a run database" in bare.stderr, bare.stderr
    # Where `run` puts it by default, report finds it unnamed.
    shutil.copy(db, cli.tmp / "adaexplore-run.sqlite")
    assert "| adaexplore | 1 | 100% |" in cli.run("report").stdout
    (cli.tmp / "adaexplore-run.sqlite").unlink()
    exported = cli.run("export", str(db), "--out", str(tmp_path / "kb"), "--level", "1")
    assert exported.returncode == 0, exported.stderr
    index = json.loads((tmp_path / "kb" / "index.json").read_text())
    assert index[0]["task"] == "relu" and (tmp_path / "kb" / index[0]["file"]).exists()
    kb_results = json.loads((tmp_path / "kb" / "eval_results.json").read_text())
    [sample] = kb_results["relu"]  # Not a numbered KernelBench problem: keyed by its name.
    assert sample["correctness"] is True and sample["runtime_stats"]["fast_p"] == pytest.approx(
        index[0]["speedup"])

    # The same run from the recording: no server, no key.
    cli.env.pop("OPENAI_API_KEY")
    cli.env["OPENAI_BASE_URL"] = "http://127.0.0.1:9/v1"
    calls_before = len(scripted.calls)
    p = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", f"replay:{recording}",
                "--steps", "8", "--db", str(tmp_path / "replay.sqlite"), "--out",
                str(tmp_path / "out2"), "--json", *FAST, timeout=900)
    assert p.returncode == 0, p.stderr
    assert "replayed from a recording" in p.stderr
    replay = json.loads(p.stdout)
    assert replay["llm_replayed"] is True and replay["tasks"][0]["steps"] == 8
    assert len(scripted.calls) == calls_before


def test_a_killed_run_resumes_without_losing_or_repeating_a_step(cli: Cli, scripted: Script,
                                                                  tmp_path: Path) -> None:
    db = tmp_path / "run.sqlite"
    args = ["run", "--task", example("tasks", "relu.py"), "--llm", "openai:scripted",
            "--steps", "7", "--db", str(db), "--out", str(tmp_path / "out"), "--json", *FAST]
    proc = subprocess.Popen([cli.binary, *args], env=cli.env, cwd=cli.tmp,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    kill_once_recorded(proc, db, 3)
    before = _nodes(db)
    assert 3 <= len(before) < 7

    p = cli.run("run", "--resume", "--db", str(db), "--out", str(tmp_path / "out"), "--json",
                *FAST, timeout=900)
    assert p.returncode == 0, p.stderr
    after = _nodes(db)
    assert [n[0] for n in after] == list(range(1, 8))  # Nothing lost, nothing done twice.
    assert after[:len(before)] == before
    summary = json.loads(p.stdout)
    assert summary["tasks"][0]["steps"] == 7
    # The run's cost covers both sessions, the calls of the step the kill cut short included
    # (their costs were recorded as the replies came); "cost" only this session.
    with sqlite3.connect(db) as c:
        (calls,) = c.execute("SELECT (SELECT count(*) FROM llm_calls) + "
                             "(SELECT count(*) FROM llm_call_costs)").fetchone()
    assert summary["run_cost"]["calls"] == calls
    assert summary["cost"]["calls"] < calls
    # The scripted model has no price: no figure, in both (not $0).
    assert summary["run_cost"]["cost_usd"] is None and summary["cost"]["cost_usd"] is None
    assert summary["run_cost"]["unpriced_calls"] > 0
    # The killed process's workers went with it.
    leftover = subprocess.run(["pgrep", "-f", f"adaexplore_worker.*{cli.tmp}"],
                              capture_output=True, text=True)
    assert leftover.stdout.strip() == ""


def test_an_interrupted_run_still_writes_its_summary_and_best_kernel(
        cli: Cli, scripted: Script, tmp_path: Path) -> None:
    db, out = tmp_path / "run.sqlite", tmp_path / "out"
    args = ["run", "--task", example("tasks", "relu.py"), "--llm", "openai:scripted",
            "--steps", "30", "--db", str(db), "--out", str(out), "--json", *FAST]
    proc = subprocess.Popen([cli.binary, *args], env=cli.env, cwd=cli.tmp,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 600
    while time.time() < deadline and not (db.exists() and _correct_nodes(db) >= 1):
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr  # Interrupted, as docs/search.md says; not failed.
    summary = json.loads(stdout)
    assert summary["status"] == "stopped" and summary["stop_reason"] == "interrupted"
    [task] = summary["tasks"]
    assert task["best"]["verdict"] == "correct"
    assert "class ModelNew" in (out / "relu.py").read_text()
    # Only whole steps are recorded; a resume would continue from them.
    assert [n[0] for n in _nodes(db)] == list(range(1, task["steps"] + 1))
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT status FROM runs").fetchone() == ("stopped",)


def _correct_nodes(db: Path) -> int:
    try:
        return sum(1 for n in _nodes(db) if n[3] == "correct")
    except sqlite3.OperationalError:
        return 0


def test_a_spent_budget_stops_the_run_cleanly(cli: Cli, scripted: Script, tmp_path: Path) -> None:
    config = tmp_path / "budget.toml"
    config.write_text("[llm]\nbudget_tokens = 3000\n")  # Each scripted call costs 1,200 tokens.
    db = tmp_path / "run.sqlite"
    p = cli.run("run", "--config", str(config), "--task", example("tasks", "relu.py"), "--llm",
                "openai:scripted", "--steps", "10", "--db", str(db), "--out",
                str(tmp_path / "out"), "--json", *FAST, timeout=900)
    assert p.returncode == 3, p.stderr  # Stopped early, not failed.
    summary = json.loads(p.stdout)
    assert summary["status"] == "stopped"
    assert "3000 tokens" in summary["stop_reason"]
    assert 1 <= summary["tasks"][0]["steps"] < 10
    # Every recorded step is whole; the step the budget interrupted was not recorded.
    assert [n[0] for n in _nodes(db)] == list(range(1, summary["tasks"][0]["steps"] + 1))
    assert summary["cost"]["input_tokens"] + summary["cost"]["output_tokens"] <= 3000 + 1200 * 2

    # The budget is the run's, not each session's: resuming has none left and asks nothing.
    calls = len(scripted.calls)
    again = cli.run("run", "--resume", "--config", str(config), "--db", str(db), "--out",
                    str(tmp_path / "out"), "--json", *FAST, timeout=900)
    assert again.returncode == 3, again.stderr
    assert "3000 tokens" in json.loads(again.stdout)["stop_reason"]
    assert len(scripted.calls) == calls


def test_confirm_best_measures_a_new_best_twice_and_keeps_the_lower(cli: Cli, scripted: Script,
                                                                    tmp_path: Path) -> None:
    db = tmp_path / "run.sqlite"
    p = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", "openai:scripted",
                "--steps", "3", "--db", str(db), "--out", str(tmp_path / "out"),
                "--confirm-best", *FAST, timeout=900)
    assert p.returncode == 0, p.stderr
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT node, verdict, speedup, result FROM nodes ORDER BY node").fetchall()
    confirmed = [(node, speedup, json.loads(result)) for node, verdict, speedup, result in rows
                 if verdict == "correct" and "measurements" in json.loads(result)["facts"]]
    assert confirmed, rows  # The first correct node is a new best: measured twice.
    for node, speedup, result in confirmed:
        first, second = result["facts"]["measurements"]
        assert first["cache_key"] != second["cache_key"]  # Measured again, not a cache hit.
        assert speedup == pytest.approx(min(first["speedup"], second["speedup"]))
        assert result["worker"] == first["worker"] == "cpu"  # The only worker: no other to use.


def test_a_broken_task_finishes_the_run_and_is_never_retried(cli: Cli, scripted: Script,
                                                             tmp_path: Path) -> None:
    db, out = tmp_path / "run.sqlite", tmp_path / "out"
    p = cli.run("run", "--task", example("tasks", "relu.py"), "--task",
                example("bad_tasks", "inputs_raise.py"), "--llm", "openai:scripted", "--steps",
                "2", "--db", str(db), "--out", str(out), "--json", *FAST, timeout=900)
    assert p.returncode == 0, p.stderr
    assert "the task is broken" in p.stderr
    summary = json.loads(p.stdout)
    assert summary["status"] == "finished"
    by_task = {t["task"]: t for t in summary["tasks"]}
    assert by_task["relu"]["status"] == "finished" and by_task["relu"]["steps"] == 2
    broken = by_task["inputs_raise"]
    assert broken["status"] == "broken" and broken["steps"] == 1
    assert broken["verdicts"] == {"task_error": 1}
    # The step's line says why it failed, not only that it did.
    events = [json.loads(line) for line in p.stderr.splitlines() if line.strip()]
    [step] = [e for e in events if e["event"] == "step" and e["task"] == "inputs_raise"]
    assert step["verdict"] == "task_error" and "dataset not found" in step["reason"], step
    assert "\n    the task itself failed: RuntimeError: dataset not found" in step["message"]

    # Resuming has nothing to do: the broken task is not tried again (no LLM call spent on it).
    calls = len(scripted.calls)
    again = cli.run("run", "--resume", "--db", str(db), "--out", str(out), "--json", *FAST,
                    timeout=900)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["status"] == "finished"
    assert len(scripted.calls) == calls


def test_edits_that_all_fail_are_told_to_the_next_tuner_of_that_kernel(cli: Cli,
                                                                       tmp_path: Path) -> None:
    script = Script(failing_tuner_replies=1)
    db = tmp_path / "run.sqlite"
    with llm_server(cli, script.handle, "sk-run-test"):
        p = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", "openai:scripted",
                    "--steps", "8", "--db", str(db), "--out", str(tmp_path / "out"), "--json",
                    *FAST, timeout=900)
    assert p.returncode == 0, p.stderr
    assert len(script.tuner_prompts) >= 2, script.calls
    first, later = script.tuner_prompts[0], script.tuner_prompts[1:]
    assert "could not be applied" not in first
    told = [t for t in later if "None of the edits of an earlier answer" in t]
    assert told, "no later tuner heard that the first reply's edits failed"
    assert "its old_str matches nothing in the kernel" in told[0]
    # The failure is stored with the step, and no other node carries it as its own feedback.
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT node, move, verdict, result FROM nodes ORDER BY node").fetchall()
    stored = [json.loads(r[3]) for r in rows]
    assert sum("failed_edits" in s for s in stored) == 1
    assert not any("old_str matches nothing" in s.get("edit_feedback", "") for s in stored)


def test_search_constants_come_from_the_config_and_stay_with_the_run(cli: Cli, scripted: Script,
                                                                     tmp_path: Path) -> None:
    config = tmp_path / "search.toml"
    # Only large steps; the objective, a run setting, lives in the search's settings too.
    config.write_text("[search]\np_large = 1.0\nexploration = 0.7\n[run]\nobjective = \"sol\"\n")
    db = tmp_path / "run.sqlite"
    p = cli.run("run", "--config", str(config), "--task", example("tasks", "relu.py"), "--llm",
                "openai:scripted", "--steps", "4", "--db", str(db), "--out",
                str(tmp_path / "out"), "--json", *FAST, timeout=900)
    assert p.returncode == 0, p.stderr
    assert {n[2] for n in _nodes(db)} == {"large_step"}
    assert "tuner" not in scripted.calls
    with sqlite3.connect(db) as c:
        (options,) = c.execute("SELECT options FROM runs").fetchone()
    search = json.loads(options)["search"]
    assert search["p_large"] == 1.0 and search["exploration"] == 0.7
    assert search["pool_size"] == 5  # The reference's where the config is silent.
    assert json.loads(options)["objective"] == "sol"  # Once stored as "speedup" (issue 55).
    # The CPU has no speed of light: the run says its rewards are speedups.
    assert "need a GPU's speed of light" in p.stderr, p.stderr


def test_each_role_calls_its_own_model_stored_with_the_run_and_reported(
        cli: Cli, scripted: Script, tmp_path: Path) -> None:
    config = tmp_path / "roles.toml"
    # The reviser from the file, the tuner from its flag; the proposer keeps --llm's model.
    config.write_text('[llm.roles]\nreviser = "openai:scripted-advice"\n'
                      '[llm.prices."openai:scripted"]\ninput_per_mtok = 1.0\n'
                      'output_per_mtok = 2.0\n')
    db = tmp_path / "run.sqlite"
    common = ["--db", str(db), "--out", str(tmp_path / "out"), "--json", *FAST]
    p = cli.run("run", "--config", str(config), "--task", example("tasks", "relu.py"), "--llm",
                "openai:scripted", "--tuner-model", "openai:scripted-small", "--steps", "5",
                *common, timeout=900)
    assert p.returncode == 0, p.stderr
    expected = {"proposer": "openai:scripted", "reviser": "openai:scripted-advice",
                "tuner": "openai:scripted-small"}

    def called() -> list[tuple[str, str]]:  # (role, model) of every stored call.
        with sqlite3.connect(db) as c:
            return c.execute("SELECT role, model FROM llm_calls").fetchall()

    assert {role for role, _ in called()} == set(expected)
    assert all(expected[role] == model for role, model in called()), called()
    # What the server was asked for: those models' names, and only them.
    assert {m for _, m in scripted.models} == {m.split(":")[1] for m in expected.values()}
    assert json.loads(p.stdout)["role_models"] == {"reviser": "openai:scripted-advice",
                                                   "tuner": "openai:scripted-small"}
    # Resumed with neither the file nor the flag: the run's own models still.
    before = len(called())
    more = cli.run("run", "--resume", "--steps", "7", *common, timeout=900)
    assert more.returncode == 0, more.stderr
    assert len(called()) > before
    assert all(expected[role] == model for role, model in called()), called()
    report = cli.run("report", "--db", str(db), "--json", timeout=120)
    assert report.returncode == 0, report.stderr
    spending = json.loads(report.stdout)["runs"][0]["spending"]
    rows = {(r["model"], r["role"]): r for r in spending["by_model_role"]}
    assert sum(r["calls"] for r in rows.values()) == len(called())
    assert set(rows) == set((m, r) for r, m in expected.items())
    assert rows[("openai:scripted", "proposer")]["cost_usd"] > 0  # Priced; the others are not.
    assert sum(r["kernels"] for r in rows.values()) >= 1
    markdown = cli.run("report", "--db", str(db), timeout=120)
    assert "## Run 1 spending" in markdown.stdout and "openai:scripted-small" in markdown.stdout


def test_resume_with_more_steps_extends_a_finished_run(cli: Cli, scripted: Script,
                                                       tmp_path: Path) -> None:
    db = tmp_path / "run.sqlite"
    common = ["--db", str(db), "--out", str(tmp_path / "out"), "--json", *FAST]
    p = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", "openai:scripted",
                "--steps", "2", *common, timeout=600)
    assert p.returncode == 0, p.stderr
    fewer = cli.run("run", "--resume", "--steps", "1", *common, timeout=120)
    assert fewer.returncode == 2 and "cannot take steps back" in fewer.stderr, fewer.stderr
    again = cli.run("run", "--resume", *common, timeout=600)
    assert again.returncode == 0 and "is finished" in again.stderr, again.stderr
    assert len(_nodes(db)) == 2
    # Resumed without the variable that named the local server: the run goes there again.
    url = cli.env.pop("OPENAI_BASE_URL")
    calls_before = len(scripted.calls)
    more = cli.run("run", "--resume", "--steps", "4", *common, timeout=600)
    assert more.returncode == 0, more.stderr
    assert "extended from 2 to 4 steps per task" in more.stderr
    assert f"LLM endpoint {url}, as the run started" in more.stderr, more.stderr
    assert len(scripted.calls) > calls_before
    assert [n[0] for n in _nodes(db)] == [1, 2, 3, 4]
    assert json.loads(more.stdout)["tasks"][0]["steps"] == 4
    # Named again, elsewhere: that endpoint, and the run says so.
    cli.env["OPENAI_BASE_URL"] = "http://127.0.0.1:9/v1"
    once = tmp_path / "once.toml"
    once.write_text("[llm]\nmax_attempts = 1\n")  # No retries: the refusals come at once.
    moved = cli.run("run", "--resume", "--steps", "5", "--config", str(once), *common,
                    timeout=600)
    assert f"LLM endpoint http://127.0.0.1:9/v1 as named now, not {url}" in moved.stderr, \
        moved.stderr
    # Every call of that session failed (nothing listens there): not a clean exit.
    assert moved.returncode == 1, moved.stderr
    assert "every LLM call of this session failed" in moved.stderr


@pytest.mark.parametrize("method, pool, contexts", [
    # The last kernels whatever their verdict; node 3 is a reply without code.
    ("irl", 5, [[], [1], [1, 2], [1, 2]]),
    # The newest kernel, then a correct kernel drawn from the others (only node 1 qualifies).
    ("irle", 2, [[], [1], [2, 1], [2, 1]]),
])
def test_the_releases_pool_baselines_show_their_context(cli: Cli, scripted: Script,
                                                       tmp_path: Path, method: str, pool: int,
                                                       contexts: list[list[int]]) -> None:
    """IRL and IRLE regenerate from the root every step, shown the kernels the release would show;
    failed ones appear as earlier attempts, apart from the pool of correct ones."""
    config = tmp_path / "search.toml"
    config.write_text(f"[search]\npool_size = {pool}\n")
    db = tmp_path / "run.sqlite"
    p = cli.run("run", "--config", str(config), "--task", example("tasks", "relu.py"), "--llm",
                "openai:scripted", "--method", method, "--steps", "4", "--db", str(db),
                "--out", str(tmp_path / "out"), "--json", *FAST, timeout=900)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["method"] == method
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT parent, move, context FROM nodes ORDER BY node").fetchall()
        (prompt,) = c.execute("SELECT messages FROM llm_calls WHERE node = 3").fetchone()
    assert [(parent, move) for parent, move, _ in rows] == [(0, "large_step")] * 4
    assert [json.loads(context) for _, _, context in rows] == contexts
    assert set(scripted.calls) == {"proposer"}
    user = json.loads(prompt)[-1]["content"]
    assert "## Strong existing kernels" in user and "## Earlier attempts" in user
    assert user.index("Result: incorrect") > user.index("## Earlier attempts")


def test_export_then_eval_round_trips_in_kernelbench_layout(cli: Cli, scripted: Script,
                                                            tmp_path: Path) -> None:
    """A run on a KernelBench problem, exported without --level (the run knows the task came
    from level1/), evaluated again from the exported folder as KernelBench's own samples: the
    same verdict. A re-export under another level replaces the file, never leaves it stale."""
    suite = tmp_path / "kb"
    (suite / "level1").mkdir(parents=True)
    shutil.copy(example("tasks", "relu.py"), suite / "level1" / "19_ReLU.py")
    db = tmp_path / "run.sqlite"
    problem = ["--level", "1", "--problem", "19", "--suite-dir", str(suite)]
    p = cli.run("run", *problem, "--llm", "openai:scripted", "--steps", "3", "--db", str(db),
                "--out", str(tmp_path / "out"), "--json", *FAST, timeout=900)
    assert p.returncode == 0, p.stderr
    [task] = json.loads(p.stdout)["tasks"]
    assert task["best"]["verdict"] == "correct"
    kb = tmp_path / "kb_out"
    exported = cli.run("export", str(db), "--out", str(kb))
    assert exported.returncode == 0, exported.stderr
    [entry] = json.loads((kb / "index.json").read_text())
    assert entry["file"] == "level_1_problem_19_sample_0_kernel.py"
    [sample] = json.loads((kb / "eval_results.json").read_text())["19"]
    assert sample["metadata"]["adaexplore"]["kernel_file"] == entry["file"]
    code, results = cli.eval_json(*problem, "--kernels-dir", str(kb), "--trials", "2",
                                  "--timed-runs", "2", "--warmup", "0", "--timeout", "120")
    assert code == 0, results
    assert results[entry["file"]]["verdict"] == "correct"
    assert results[entry["file"]]["task"] == "19_ReLU"

    again = cli.run("export", str(db), "--out", str(kb), "--level", "2")
    assert again.returncode == 0, again.stderr
    assert sorted(p.name for p in kb.glob("*.py")) == ["level_2_problem_19_sample_0_kernel.py"]


def test_a_search_starts_from_the_users_seed_kernel(cli: Cli, scripted: Script,
                                                    tmp_path: Path) -> None:
    db = tmp_path / "run.sqlite"
    p = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", "openai:scripted",
                "--steps", "5", "--db", str(db), "--out", str(tmp_path / "out"), "--seed-kernel",
                example("kernels", "relu", "ok.py"), "--json", *FAST, timeout=900)
    assert p.returncode == 0, p.stderr
    nodes = _nodes(db)
    assert nodes[0][1:3] == (0, "seed"), nodes  # The user's kernel is node 1, no LLM call made.
    with sqlite3.connect(db) as c:
        [(seed_kernel, seed_verdict)] = c.execute(
            "SELECT kernel, verdict FROM nodes WHERE node = 1").fetchall()
    assert seed_kernel == Path(example("kernels", "relu", "ok.py")).read_text()
    assert seed_verdict == "correct"
    assert any(n[1] == 1 for n in nodes[1:]), nodes  # Later steps build on it.
    # Reports show where the search started and how far it got from there.
    [run] = json.loads(cli.run("report", str(db), "--json").stdout)["runs"]
    [task] = run["tasks"]
    assert task["seeded"] is True and task["seed_speedup"] > 0
    assert task["over_seed"] == pytest.approx(task["speedup"] / task["seed_speedup"])
    assert "from your kernel (" in cli.run("report", str(db)).stdout

    # A seed that is not correct is still the start: the next step is asked to fix it.
    db2 = tmp_path / "wrong.sqlite"
    p = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", "openai:scripted",
                "--steps", "2", "--db", str(db2), "--out", str(tmp_path / "out2"),
                "--seed-kernel", example("kernels", "relu", "wrong_values.py"), *FAST,
                timeout=900)
    assert p.returncode == 0, p.stderr
    assert [n[:3] for n in _nodes(db2)] == [(1, 0, "seed"), (2, 1, "small_step")], _nodes(db2)
    bad = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", "openai:scripted",
                  "--steps", "2", "--db", str(tmp_path / "x.sqlite"), "--seed-kernel",
                  example("kernels", "relu", "ok.py"), "--seed-kernel",
                  example("kernels", "relu", "prints.py"), *FAST)
    assert bad.returncode == 2 and "no task of this run is named ok" in bad.stderr, bad.stderr
    # A link among the seeds (to a file the user never meant to send to an LLM) is not read.
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (tmp_path / "secret.txt").write_text("adx-not-for-the-llm\n")
    (seeds / "relu.py").symlink_to(tmp_path / "secret.txt")
    linked = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", "openai:scripted",
                     "--steps", "2", "--db", str(tmp_path / "y.sqlite"), "--seed-kernel",
                     str(seeds), *FAST)
    assert linked.returncode == 2 and "a symbolic link, not read" in linked.stderr, linked.stderr


def test_seed_kernels_from_a_kernelbench_run_folder(cli: Cli, scripted: Script,
                                                   tmp_path: Path) -> None:
    """KernelBench writes level_L_problem_P_sample_S_kernel.py: the lowest sample of a task's
    problem seeds it; a file of the folder for no task of the run is listed and skipped."""
    task = tmp_path / "kb" / "level1" / "19_ReLU.py"
    task.parent.mkdir(parents=True)
    task.write_text(Path(example("tasks", "relu.py")).read_text())
    run_folder = tmp_path / "runs" / "level1"
    run_folder.mkdir(parents=True)
    for name, source in (("level_1_problem_19_sample_0_kernel.py", "ok.py"),
                         ("level_1_problem_19_sample_3_kernel.py", "wrong_values.py"),
                         ("level_1_problem_7_sample_0_kernel.py", "ok.py")):
        (run_folder / name).write_text(Path(example("kernels", "relu", source)).read_text())
    db = tmp_path / "run.sqlite"
    p = cli.run("run", "--task", str(task), "--llm", "openai:scripted", "--steps", "1", "--db",
                str(db), "--out", str(tmp_path / "out"), "--seed-kernel", str(run_folder),
                *FAST, timeout=600)
    assert p.returncode == 0, p.stderr
    with sqlite3.connect(db) as c:
        [(kernel, move)] = c.execute("SELECT kernel, move FROM nodes WHERE node = 1").fetchall()
    assert move == "seed" and kernel == Path(example("kernels", "relu", "ok.py")).read_text()
    assert "1 file(s) of the folder name no task of this run, skipped" in p.stderr, p.stderr
    assert "level_1_problem_7_sample_0_kernel.py" in p.stderr


def test_a_wrong_llm_port_ends_the_run_at_once_naming_the_endpoint(cli: Cli,
                                                                   tmp_path: Path) -> None:
    """Nothing listens at the named endpoint: 8 tries a call and 10 calls were once about 20
    minutes of silence; now a few quick tries, then the run stops and says why."""
    cli.env["OPENAI_API_KEY"] = "sk-wrong-port"
    cli.env["OPENAI_BASE_URL"] = "http://127.0.0.1:9/v1"
    start = time.monotonic()
    p = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", "openai:m", "--steps", "3",
                "--db", str(tmp_path / "run.sqlite"), "--out", str(tmp_path / "out"), *FAST,
                timeout=300)
    assert time.monotonic() - start < 60
    assert p.returncode != 0
    assert "http://127.0.0.1:9/v1" in p.stderr and "never reached in 3 tries" in p.stderr, p.stderr


def test_llm_retries_show_as_they_happen(cli: Cli, tmp_path: Path) -> None:
    """An overloaded endpoint (503, Retry-After 1) twice: each retry is a line on the terminal
    and a JSON event, and the status line's fields count them; the run then goes on."""
    script = Script()
    refused = []

    def handle(path: str, headers: object, body: dict) -> str:
        if len(refused) < 2:
            refused.append(path)
            raise Refuse(503, retry_after_s=1)
        return script.handle(path, headers, body)

    with llm_server(cli, handle, "sk-retry-test"):
        p = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", "openai:scripted",
                    "--steps", "1", "--json", "--db", str(tmp_path / "run.sqlite"),
                    "--out", str(tmp_path / "out"), *FAST)
    assert p.returncode == 0, p.stderr
    lines = [json.loads(line) for line in p.stderr.splitlines() if line.startswith("{")]
    retries = [line for line in lines if line.get("event") == "llm_retry"]
    assert len(retries) == 2 and all(r["cause"] == "HTTP 503" for r in retries), retries
    assert retries[0]["attempt"] == 2 and retries[1]["attempt"] in (2, 3), retries
    assert all(r["max_attempts"] >= 3 and r["wait_s"] >= 0.9 for r in retries), retries
    assert "LLM call retrying 2/" in retries[0]["message"]
    progress = [line for line in lines if line.get("event") == "progress"]
    assert progress and progress[-1]["llm_retries"] == 2 and progress[-1]["llm_retrying"] == []


def test_a_repeated_kernel_is_not_evaluated_again(cli: Cli, tmp_path: Path) -> None:
    """The LLM proposes the same kernel every time (as a cached or resumed run once did: 22
    steps, 4 distinct kernels). A repeat is not evaluated: the step asks again with a note, the
    record counts it, and the report shows the count."""
    from scripted_llm import GOOD, WRONG
    notes = []

    def handle(_path: str, _headers: object, body: dict) -> str:
        user = body["messages"][-1]["content"]
        if "Do not repeat it" in user:
            notes.append(user)
            code = WRONG if len(notes) == 1 else GOOD  # Then the same kernel once more.
        else:
            code = GOOD
        return f"```python\n{code}```\n"

    db = tmp_path / "run.sqlite"
    with llm_server(cli, handle, "sk-repeat-test"):
        p = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", "openai:scripted",
                    "--method", "ps", "--steps", "3", "--db", str(db), "--out",
                    str(tmp_path / "out"), *FAST)
    assert p.returncode == 0, p.stderr
    assert len(notes) == 2, notes  # Two steps repeated, each asked again once.
    assert "node 1's kernel" in notes[0] or "the kernel step" in notes[0], notes[0]
    verdicts = sorted(v for *_, v in _nodes(db))
    assert verdicts == ["correct", "incorrect", "no_kernel"], verdicts
    with sqlite3.connect(db) as c:
        repeats = [json.loads(r).get("llm_repeats", []) for (r,) in
                   c.execute("SELECT result FROM nodes ORDER BY node")]
    assert sorted(len(r) for r in repeats) == [0, 1, 2], repeats
    report = cli.run("report", str(db), "--json")
    assert report.returncode == 0, report.stderr
    [task] = json.loads(report.stdout)["runs"][0]["tasks"]
    assert task["llm_repeats"] == 3, task
    markdown = cli.run("report", str(db)).stdout
    assert "3 LLM replies repeated a kernel (not evaluated again)" in markdown, markdown
