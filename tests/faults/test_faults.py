"""Each case of issue 22 that is handled so far, as a user meets it: the binary never aborts, a
verdict stays the candidate's, a process never outlives its evaluation, a bad setting is said
before any work. The README's reliability section lists them."""

from __future__ import annotations

import time
from pathlib import Path

from cli import Cli, example

FAST = ["--timed-runs", "2", "--warmup", "0", "--trials", "2"]  # eval_json adds --device cpu.
CPU = ["--device", "cpu", *FAST]


def _ok_kernel() -> str:
    return Path(example("kernels", "relu", "ok.py")).read_text()


def _gone(pid: int, within_s: float = 10) -> bool:
    deadline = time.monotonic() + within_s
    while Path(f"/proc/{pid}").exists():  # A zombie is reaped soon after its parent exits.
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def test_a_file_that_is_not_utf8_is_an_error_naming_the_byte(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "latin1.py"
    bad.write_bytes(_ok_kernel().encode() + b"# caf\xe9\n")
    p = cli.run("eval", *CPU, "--task", example("tasks", "relu.py"), "--kernel", str(bad))
    assert p.returncode == 2, p.stderr  # Not a signal: the binary did not abort.
    assert "is not UTF-8 (byte 0xe9" in p.stderr


def test_a_lone_surrogate_in_an_error_is_the_candidates_verdict_at_once(cli: Cli,
                                                                         tmp_path: Path) -> None:
    kernel = tmp_path / "surrogate.py"
    kernel.write_text(_ok_kernel() + "\n\nraise RuntimeError("
                      "b'bad \\xff byte'.decode('utf-8', 'surrogateescape'))\n")
    start = time.monotonic()
    code, results = cli.eval_json(*FAST, "--timeout", "120", "--task",
                                  example("tasks", "relu.py"), "--kernel", str(kernel))
    result = results["surrogate.py"]
    assert result["verdict"] != "timeout" and "bad ? byte" in result["reason"], result
    assert time.monotonic() - start < 100


def test_a_daemon_the_candidate_leaves_is_killed_and_the_verdict_stands(cli: Cli,
                                                                       tmp_path: Path) -> None:
    pid_file = tmp_path / "daemon.pid"
    kernel = tmp_path / "daemon.py"
    tail = (Path(__file__).parent / "kernels" / "daemon_tail.py").read_text()
    kernel.write_text(_ok_kernel() + "\n\n" + tail.replace("PID_FILE", str(pid_file)))
    _, results = cli.eval_json(*FAST, "--task", example("tasks", "relu.py"), "--kernel",
                               str(kernel), "--kernel", example("kernels", "relu", "ok.py"))
    assert results["daemon.py"]["verdict"] == "correct", results["daemon.py"]
    assert results["ok.py"]["verdict"] == "correct"
    assert _gone(int(pid_file.read_text()))


def test_a_mistyped_flag_exits_2_and_says_what_was_meant(cli: Cli) -> None:
    p = cli.run("eval", "--trails", "3", "--task", example("tasks", "relu.py"))
    assert p.returncode == 2
    assert "did you mean --trials (not --trails)?" in p.stderr
    p = cli.run("evl")
    assert p.returncode == 2 and "did you mean the command eval (not evl)?" in p.stderr


def test_an_unusable_endpoint_is_a_configuration_error_before_any_work(cli: Cli,
                                                                       tmp_path: Path) -> None:
    for url, why in (("htp://127.0.0.1:8000/v1", "Unsupported URL scheme"),
                     ("http://127.0.0.1:99999/v1", "Port number")):
        cli.env.update(OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-test")
        start = time.monotonic()
        p = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", "openai:any",
                    "--steps", "2", "--db", str(tmp_path / "run.sqlite"), *CPU, timeout=120)
        assert p.returncode == 2, p.stderr
        assert f"the LLM endpoint '{url}'" in p.stderr and why in p.stderr, p.stderr
        assert time.monotonic() - start < 30  # No worker started, no retries.


def test_secrets_under_any_name_do_not_reach_a_candidate(cli: Cli, tmp_path: Path) -> None:
    """The environment is an allowlist: names no denylist guesses stay out too."""
    secrets = ["DATABASE_URL", "GH_PAT", "DB_PASSWD", "OPENAI_API_KEY", "MY_SERVICE_CREDENTIALS"]
    cli.env.update({name: "s3cr3t-value" for name in secrets})
    kernel = tmp_path / "env_reader.py"
    kernel.write_text(_ok_kernel() + "\n\nimport os as _os\n"
                      "_seen = sorted(k for k, v in _os.environ.items() if 's3cr3t' in v)\n"
                      "raise RuntimeError('SEEN=' + ','.join(_seen) + '=END')\n")
    _, results = cli.eval_json(*FAST, "--task", example("tasks", "relu.py"), "--kernel",
                               str(kernel))
    assert "SEEN==END" in results["env_reader.py"]["reason"], results["env_reader.py"]
