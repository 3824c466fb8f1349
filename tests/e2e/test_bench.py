"""`adaexplore bench` end to end on the CPU with the scripted LLM: two methods over a two-task
suite in one run database, the tasks' baselines timed first, the report printed at the end; run
again, the finished bench calls no LLM, evaluates nothing, takes the baselines from the cache,
and reports the same figures."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from browser import CHROMIUM, chromium
from conftest import Cli, example, llm_server
from scripted_llm import GOOD, Script

FAST = ["--device", "cpu", "--timed-runs", "2", "--warmup", "0", "--trials", "2",
        "--timeout", "120"]


class ReluScript(Script):
    """Every proposal is the correct ReLU kernel: right for relu, wrong for any other task."""

    def reply(self, messages: list[dict]) -> str:
        if "Review the implementation" in messages[-1]["content"] or \
                "Improve the latest" in messages[-1]["content"]:
            return super().reply(messages)
        with self.lock:
            self.calls.append("proposer")
        return f"```python\n{GOOD}```\n"


@pytest.fixture()
def scripted(cli: Cli):
    script = ReluScript()
    with llm_server(cli, script.handle, "sk-bench-test"):
        yield script


def test_bench_runs_every_method_and_resumes(cli: Cli, scripted: Script, tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    for name in ["relu.py", "min_clamp.py"]:
        shutil.copy(example("tasks", name), suite / name)
    args = ["bench", "--suite", str(suite), "--method", "adaexplore,ps", "--steps", "2",
            "--llm", "openai:scripted", "--db", str(tmp_path / "bench.sqlite"), "--out",
            str(tmp_path / "out"), "--json", "--html", str(tmp_path / "bench.html"),
            "--baseline", "eager", *FAST]
    p = cli.run(*args, "--log-level", "info", timeout=900)
    assert p.returncode == 0, p.stderr
    assert "bench: baselines: 2 measured, 0 from the cache, 0 failed" in p.stderr
    # --json: stderr is JSON lines throughout, the log's records (--log-level info) included.
    events = [json.loads(line) for line in p.stderr.splitlines() if line.strip()]
    assert any(e["event"] == "log" and "workers: 1 x cpu" in e["message"] for e in events)
    assert [(e["index"], e["methods"], e["method"]) for e in events
            if e["event"] == "bench_method"] == [(1, 2, "adaexplore"), (2, 2, "ps")]
    timed = [e for e in events if e["event"] == "progress" and e.get("phase") == "baselines"]
    assert timed and (timed[-1]["done"], timed[-1]["total"]) == (2, 2)
    assert [e["method"] for e in events if e["event"] == "run_start"] == ["adaexplore", "ps"]
    # The baselines and both methods' runs share one session: the workers were started once.
    assert p.stderr.count("workers: 1 x cpu") == 1, p.stderr
    report = json.loads(p.stdout)
    assert [r["method"] for r in report["runs"]] == ["adaexplore", "ps"]
    assert [m["method"] for m in report["methods"]] == ["adaexplore", "ps"]
    for run in report["runs"]:
        assert run["metrics"]["tasks"] == 2 and run["metrics"]["steps"] == 4
        # Every proposal is a ReLU kernel: right for relu, wrong for min_clamp.
        by_task = {t["task"]: t for t in run["tasks"]}
        assert by_task["relu"]["correct"] is True
        assert by_task["min_clamp"]["correct"] is False
        assert run["metrics"]["acc"] == 0.5
        for task in run["tasks"]:  # Eager only: no torch.compile figures.
            assert task["eager_ms"] > 0 and task["compiled_ms"] is None
        assert run["metrics"]["vs_compile"]["tasks"] == 0
    assert (tmp_path / "bench.html").stat().st_size > 10_000
    if CHROMIUM is not None:  # The page in a browser: one curve per method, named once each.
        dom = chromium("--window-size=1280,1400", "--dump-dom", (tmp_path / "bench.html").as_uri())
        assert dom.returncode == 0 and 'data-ready="1"' in dom.stdout, dom.stderr
        body = re.search(r"<body[^>]*>", dom.stdout).group(0)
        assert "data-errors" not in body
        assert "data-overflowing-tables" not in body  # The metrics fit 1280 px unscrolled.
        legend = re.findall(r'class="legend"[^>]*>([^<]*)<', dom.stdout)
        assert legend[:2] == ["adaexplore mean (2)", "ps mean (2)"], legend
        assert dom.stdout.count('class="spread"') >= 2
        shot = tmp_path / "bench.png"
        taken = chromium("--hide-scrollbars", "--window-size=1280,1400", f"--screenshot={shot}",
                         (tmp_path / "bench.html").as_uri())
        assert taken.returncode == 0 and shot.stat().st_size > 20_000, taken.stderr
    assert (tmp_path / "out" / "ps" / "relu.py").exists()

    calls = len(scripted.calls)
    again = cli.run(*args, timeout=900)
    assert again.returncode == 0, again.stderr
    assert "already finished" in again.stderr
    assert "bench: baselines: 0 measured, 2 from the cache, 0 failed" in again.stderr
    assert len(scripted.calls) == calls  # Nothing asked again.
    assert json.loads(again.stdout)["runs"] == report["runs"]

    # Other settings (the search's seed, the evaluation profile) are another bench, not the
    # finished one again.
    other_args = [a if a != "adaexplore,ps" else "ps" for a in args]
    for extra in (["--seed", "7"], ["--profile", "paper"]):
        other = cli.run(*other_args, *extra, timeout=900)
        assert other.returncode == 0, other.stderr
        assert "already finished" not in other.stderr and "(resumed)" not in other.stderr
        runs = json.loads(other.stdout)["runs"]
        assert len(runs) == 1 and runs[0]["run"] not in {r["run"] for r in report["runs"]}


def test_bench_names_a_missing_kernelbench_and_problems_it_lacks(cli: Cli,
                                                                 tmp_path: Path) -> None:
    cli.env.pop("KERNELBENCH_DIR", None)
    db = ["--llm", "openai:x", "--db", str(tmp_path / "b.sqlite")]
    p = cli.run("bench", "--suite", "kernelbench:level2", "--kernelbench",
                str(tmp_path / "nowhere"), *db)
    assert p.returncode == 2 and "no level2 folder" in p.stderr, p.stderr
    kb = tmp_path / "kb"
    (kb / "level1").mkdir(parents=True)
    shutil.copy(example("tasks", "relu.py"), kb / "level1" / "19_ReLU.py")
    for args, words in ((["--level", "1", "--problem", "20"], "no problem 20"),
                        (["--level", "1", "--suite", "kernelbench:level2"], "different suites"),
                        (["--level", "5"], "--level"),
                        ([], "needs its tasks"),
                        # The report a bench writes at its end is checked before it starts.
                        (["--level", "1", "--html", str(tmp_path / "none" / "b.html")],
                         "there is no folder")):
        p = cli.run("bench", *args, "--kernelbench", str(kb), *db)
        assert p.returncode == 2 and words in p.stderr, (args, p.returncode, p.stderr)
    assert not (tmp_path / "b.sqlite").exists()
