"""The run database and its readers under bad data (issue 34): a faulty endpoint's token counts,
a malformed stored JSON value, a stored task name that is a path, and a run killed between an
LLM reply and its step. Each drives the real binary and the real worker on the CPU, with an
OpenAI-compatible server on loopback (tests/fakes/openai_stub.py)."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from cli import Cli, example, serve

FAST = ["--device", "cpu", "--timed-runs", "2", "--warmup", "0", "--trials", "2", "--timeout",
        "120"]
GOOD = Path(example("kernels", "relu", "ok.py")).read_text()
MAX_INT64 = 2**63 - 1
MAX_TOKENS_PER_CALL = 1_000_000_000  # llm/token_usage.h's kMaxTokensPerCall.


class Proposer:
    """Answers every request with the example ReLU kernel (a comment makes each one new), counts
    the replies it has sent, and can make one reply's kernel sleep on import."""

    def __init__(self, slow_reply: int = 0) -> None:
        self.lock = threading.Lock()
        self.answered = 0
        self.slow_reply = slow_reply
        self.sent = threading.Event()  # Set once the slow reply is on its way.

    def __call__(self, _path: str, _headers: object, _body: dict[str, Any]) -> str:
        with self.lock:
            self.answered += 1
            number = self.answered
        code = GOOD + f"# proposal {number}\n"
        if number == self.slow_reply:
            code += "import time as _t\n_t.sleep(60)\n"
            self.sent.set()
        return f"```python\n{code}```\n"


def _run(cli: Cli, db: Path, out: Path, *extra: str, steps: int = 2,
         timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return cli.run("run", "--task", example("tasks", "relu.py"), "--llm", "openai:stub",
                   "--method", "ps", "--steps", str(steps), "--db", str(db), "--out", str(out),
                   "--json", *extra, *FAST, timeout=timeout)


def _resume(cli: Cli, db: Path, out: Path, steps: int) -> subprocess.CompletedProcess[str]:
    return cli.run("run", "--resume", "--steps", str(steps), "--db", str(db), "--out", str(out),
                   "--json", *FAST, timeout=600)


def _not_aborted(p: subprocess.CompletedProcess[str]) -> None:
    assert p.returncode >= 0 and p.returncode != 134, (p.returncode, p.stderr[-3000:])
    assert "terminate called" not in p.stderr and "runtime error" not in p.stderr, p.stderr


def test_a_usage_of_2_63_tokens_is_clamped_and_the_database_stays_readable(
        cli: Cli, tmp_path: Path) -> None:
    httpd, url = serve(Proposer(), prompt_tokens=MAX_INT64, completion_tokens=-5)
    cli.env.update(OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-test")
    db, out = tmp_path / "run.sqlite", tmp_path / "out"
    try:
        p = _run(cli, db, out)
        _not_aborted(p)
        assert p.returncode == 0, p.stderr[-3000:]
        assert "prompt_tokens" in p.stderr and "completion_tokens" in p.stderr, p.stderr[-3000:]
        report = cli.run("report", str(db), "--json")
        _not_aborted(report)
        assert report.returncode == 0, report.stderr
        [run] = json.loads(report.stdout)["runs"]
        assert run["cost"]["calls"] == 2
        # Absurd counts are clamped to the ceiling, negative ones dropped: the sums stay exact.
        assert run["cost"]["input_tokens"] == 2 * MAX_TOKENS_PER_CALL
        assert run["cost"]["output_tokens"] == 0
        resumed = _resume(cli, db, out, steps=3)
        _not_aborted(resumed)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        assert json.loads(resumed.stdout)["run_cost"]["calls"] == 3
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_database_poisoned_by_an_earlier_build_still_sums(cli: Cli, tmp_path: Path) -> None:
    """Counts stored before they were clamped: the readers' sums saturate, never overflow."""
    httpd, url = serve(Proposer())
    cli.env.update(OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-test")
    db, out = tmp_path / "run.sqlite", tmp_path / "out"
    try:
        assert _run(cli, db, out).returncode == 0
    finally:
        httpd.shutdown()
        httpd.server_close()
    poisoned = json.dumps({"input": MAX_INT64, "output": MAX_INT64, "cached_input": 0})
    with sqlite3.connect(db) as c:
        c.execute("UPDATE llm_calls SET usage = ?", (poisoned,))
    report = cli.run("report", str(db), "--json")
    _not_aborted(report)
    assert report.returncode == 0, report.stderr
    [run] = json.loads(report.stdout)["runs"]
    assert run["cost"]["input_tokens"] == MAX_INT64  # Saturated, not wrapped or an error.


def _finished_run(cli: Cli, tmp_path: Path) -> Path:
    httpd, url = serve(Proposer())
    cli.env.update(OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-test")
    db = tmp_path / "clean.sqlite"
    try:
        p = _run(cli, db, tmp_path / "out")
        assert p.returncode == 0, p.stderr[-3000:]
    finally:
        httpd.shutdown()
        httpd.server_close()
    return db


# (table, column, the SQL that breaks it, what the error names). Each is a value a reader meets.
CORRUPTIONS = [
    ("nodes", "result", "UPDATE nodes SET result = '{\"verdict\": ' WHERE node = 1",
     "run database: nodes row (run 1, task 'relu', node 1): column 'result' is not valid JSON"),
    ("nodes", "result", "UPDATE nodes SET result = '[1, 2]' WHERE node = 2",
     "run database: nodes row (run 1, task 'relu', node 2): column 'result'"),
    ("nodes", "result",
     "UPDATE nodes SET result = json_set(result, '$.timing', json('{\"candidate\": 5}'), "
     "'$.edit_feedback', 7) WHERE node = 1",
     "run database: nodes row (run 1, task 'relu', node 1): column 'result'"),
    ("nodes", "context", "UPDATE nodes SET context = 'nope' WHERE node = 1",
     "run database: nodes row (run 1, task 'relu', node 1): column 'context' is not valid JSON"),
    ("runs", "options", "UPDATE runs SET options = '{' WHERE id = 1",
     "run database: runs row (run 1): column 'options' is not valid JSON"),
    ("runs", "options",
     "UPDATE runs SET options = json_set(options, '$.environment', json('{\"device\": 5}'), "
     "'$.profile', 3) WHERE id = 1",
     "run database: runs row (run 1): column 'options'"),
    ("llm_calls", "usage", "UPDATE llm_calls SET usage = 'x' WHERE node = 1",
     "run database: llm_calls row (run 1, task 'relu', node 1, call 0): column 'usage' is not "
     "valid JSON"),
    ("task_files", "file", "UPDATE task_files SET file = json('{\"kind\": 3, \"path\": []}')",
     "run database: task_files row (run 1, task 'relu'): column 'file'"),
]


def test_a_malformed_stored_json_value_is_an_error_naming_table_row_and_column(
        cli: Cli, tmp_path: Path) -> None:
    clean = _finished_run(cli, tmp_path)
    httpd, url = serve(Proposer())
    cli.env.update(OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-test")
    try:
        for index, (table, column, sql, words) in enumerate(CORRUPTIONS):
            db = tmp_path / f"bad{index}.sqlite"
            shutil.copy(clean, db)
            with sqlite3.connect(db) as c:
                assert c.execute(sql).rowcount >= 1, sql
            commands = {
                "report": cli.run("report", str(db), "--json"),
                "export": cli.run("export", str(db), "--out", str(tmp_path / f"kb{index}")),
                "resume": _resume(cli, db, tmp_path / f"out{index}", steps=3),
            }
            for name, p in commands.items():
                _not_aborted(p)
                # Every reader meets the rows it needs; one that never reads the broken value
                # (report does not read calls' usage) may succeed.
                if p.returncode != 0:
                    assert words in p.stderr, (table, column, name, p.stderr[-3000:])
            failed = [name for name, p in commands.items() if p.returncode != 0]
            assert failed, (table, column, "no reader noticed the broken value")
    finally:
        httpd.shutdown()
        httpd.server_close()


def _files_under(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file()}


def test_a_stored_task_name_that_is_a_path_stays_inside_out(cli: Cli, tmp_path: Path) -> None:
    clean = _finished_run(cli, tmp_path)
    base = tmp_path / "a" / "b"
    base.mkdir(parents=True)
    db = base / "run.sqlite"
    shutil.copy(clean, db)
    with sqlite3.connect(db) as c:
        for table, column in (("tasks", "name"), ("task_files", "name"), ("nodes", "task"),
                              ("llm_calls", "task")):
            c.execute(f"UPDATE {table} SET {column} = '../../x'")
    before = _files_under(tmp_path)
    out = base / "export"
    exported = cli.run("export", str(db), "--out", str(out), "--level", "1")
    _not_aborted(exported)
    assert exported.returncode == 0, exported.stderr
    written = _files_under(tmp_path) - before
    assert written and all(out in p.parents for p in written), written
    index = json.loads((out / "index.json").read_text())
    assert index[0]["task"] == "../../x" and "/" not in index[0]["file"], index
    assert json.loads((out / "eval_results.json").read_text()).keys() == {"../../x"}

    httpd, url = serve(Proposer())
    cli.env.update(OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-test")
    before = _files_under(tmp_path)
    run_out = base / "out"
    try:
        resumed = _resume(cli, db, run_out, steps=3)
    finally:
        httpd.shutdown()
        httpd.server_close()
    _not_aborted(resumed)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    written = {p for p in _files_under(tmp_path) - before if not p.name.startswith("run.sqlite")}
    written = {p for p in written if "cache" not in p.relative_to(tmp_path).parts}
    assert written and all(run_out in p.parents for p in written), written
    assert not (tmp_path / "x.py").exists() and not (tmp_path / "a" / "x.py").exists()


def test_a_kill_between_reply_and_step_loses_no_cost_and_resume_counts_it(
        cli: Cli, tmp_path: Path) -> None:
    """kill -9 while the third reply's kernel is being evaluated: the three answered calls are on
    record, and a resume under a budget of exactly those tokens sends nothing more."""
    config = tmp_path / "budget.toml"
    # Each call is 1,000 + 200 tokens (openai_stub's usage); the cache off, so a resume asks again.
    config.write_text("[llm]\nbudget_tokens = 3600\ncache = false\n")
    proposer = Proposer(slow_reply=3)
    httpd, url = serve(proposer)
    cli.env.update(OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-test")
    db, out = tmp_path / "run.sqlite", tmp_path / "out"
    args = ["run", "--config", str(config), "--task", example("tasks", "relu.py"), "--llm",
            "openai:stub", "--method", "ps", "--steps", "6", "--db", str(db), "--out", str(out),
            "--json", *FAST]
    try:
        proc = subprocess.Popen([cli.binary, *args], env=cli.env, cwd=cli.tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proposer.sent.wait(timeout=400), "the third call never came"
        time.sleep(3)  # The reply is in; its kernel sleeps for a minute in the worker.
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        assert proposer.answered == 3
        with sqlite3.connect(db) as c:
            (nodes,) = c.execute("SELECT count(*) FROM nodes").fetchone()
        assert nodes == 2  # The third step was in flight.
        report = cli.run("report", str(db), "--json")
        assert report.returncode == 0, report.stderr
        cost = json.loads(report.stdout)["runs"][0]["cost"]
        # Every answered call is on record, the unfinished step's included.
        assert (cost["calls"], cost["input_tokens"]) == (3, 3000), cost

        again = cli.run("run", "--resume", "--config", str(config), "--db", str(db), "--out",
                        str(out), "--json", *FAST, timeout=600)
        assert again.returncode == 3, again.stderr[-3000:]  # Stopped by the budget.
        assert "3600 tokens" in json.loads(again.stdout)["stop_reason"]
        assert proposer.answered == 3  # The spent budget was counted: nothing more was sent.
    finally:
        httpd.shutdown()
        httpd.server_close()
