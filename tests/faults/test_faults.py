"""Each case of issue 22 that is handled so far, as a user meets it: the binary never aborts, a
verdict stays the candidate's, a process never outlives its evaluation, a bad setting is said
before any work. docs/reliability.md lists them."""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from cli import Cli, example, serve

FAST = ["--timed-runs", "2", "--warmup", "0", "--trials", "2"]  # eval_json adds --device cpu.
CPU = ["--device", "cpu", *FAST]


def _ok_kernel() -> str:
    return Path(example("kernels", "relu", "ok.py")).read_text()


def _shared_memory_file(tmp_path: Path, name: str) -> Path:
    """A file a candidate writes where the test sees it, when it runs without the sandbox
    (--no-sandbox). Named after the test's own folder, so tests never share one."""
    path = Path("/dev/shm") / f"adx-{os.getpid()}-{tmp_path.name}-{name}"
    path.unlink(missing_ok=True)
    return path


def _job_marker(tmp_path: Path, name: str) -> tuple[str, Callable[[], list[Path]]]:
    """A name a sandboxed candidate gives a file in its job folder (the only place it writes
    that the host sees), and how the test finds it: below the evaluation's scratch folder,
    which TMPDIR puts in the test's folder."""
    marker = f"adx-{tmp_path.name}-{name}"
    return marker, lambda: list(tmp_path.glob(f"scratch/adaexplore-run-*/*/jobs/*/{marker}"))


def _processes_named(tag: str) -> list[int]:
    """Host pids whose command line holds `tag`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if tag.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _gone(pid: int, within_s: float = 10) -> bool:
    deadline = time.monotonic() + within_s
    while Path(f"/proc/{pid}").exists():  # A zombie is reaped soon after its parent exits.
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def test_a_file_that_is_not_utf8_is_its_verdict_naming_the_byte(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "latin1.py"
    bad.write_bytes(_ok_kernel().encode() + b"# caf\xe9\n")
    p = cli.run("eval", *CPU, "--task", example("tasks", "relu.py"), "--kernel", str(bad))
    # Not a signal (the binary did not abort), and not the batch's end: that file's verdict.
    assert p.returncode == 1, p.stderr
    assert "compile_error" in p.stdout and "is not UTF-8 (byte 0xe9" in p.stdout, p.stdout


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
    """In its sandbox and without it (--no-sandbox, the subreapers' sweep)."""
    for mode in ([], ["--no-sandbox"]):
        tag = f"adx-daemon-{tmp_path.name}-{len(mode)}"
        kernel = tmp_path / "daemon.py"
        tail = (Path(__file__).parent / "kernels" / "daemon_tail.py").read_text()
        kernel.write_text(_ok_kernel() + "\n\n" + tail.replace("TAG", tag))
        _, results = cli.eval_json(*FAST, *mode, "--task", example("tasks", "relu.py"),
                                   "--kernel", str(kernel), "--kernel",
                                   example("kernels", "relu", "ok.py"))
        assert results["daemon.py"]["verdict"] == "correct", results["daemon.py"]
        assert results["ok.py"]["verdict"] == "correct"
        deadline = time.monotonic() + 10
        while _processes_named(tag) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _processes_named(tag) == [], mode


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
        assert not list(tmp_path.glob("run.sqlite*"))  # A failed command leaves nothing behind.


def test_flags_out_of_their_values_exit_2_naming_them_and_leave_nothing(cli: Cli,
                                                                        tmp_path: Path) -> None:
    cli.env.update(OPENAI_API_KEY="sk-test")
    task = example("tasks", "relu.py")
    for command, args, words in (
            ("eval", ["--device", "tpu"], "--device tpu: must be one of auto, cuda, cpu"),
            ("eval", ["--slots", "0"], "--slots 0: must lie in [1, 1024]"),
            ("eval", ["--trials", "0"], "--trials 0"),
            ("eval", ["--timeout", "-5"], "--timeout -5"),
            ("run", ["--device", "tpu", "--llm", "openai:any"], "--device tpu"),
            ("run", ["--slots", "0", "--llm", "openai:any"], "--slots 0"),
            ("run", ["--gpus", "0,-1", "--llm", "openai:any"], "--gpus 0,-1: each must be"),
            ("bench", ["--device", "tpu", "--llm", "openai:any"], "--device tpu")):
        where = ["--suite", str(Path(task).parent)] if command == "bench" else ["--task", task]
        p = cli.run(command, *args, *where, "--kernel" if command == "eval" else "--db",
                    example("kernels", "relu", "ok.py") if command == "eval"
                    else str(tmp_path / "run.sqlite"))
        assert p.returncode == 2 and words in p.stderr, (command, args, p.returncode, p.stderr)
    assert not list(tmp_path.glob("run.sqlite*"))


def test_a_failed_adapt_leaves_no_memory_or_database_behind(cli: Cli, tmp_path: Path) -> None:
    cli.env.update(OPENAI_API_KEY="sk-test")
    memory = tmp_path / "memory.sqlite"
    for args, words in (([], "no tasks to adapt on"),
                        (["--task", str(tmp_path / "missing.py")], "missing.py"),
                        (["--task", example("tasks", "relu.py"), "--device", "tpu"], "--device tpu")):
        p = cli.run("adapt", "--memory", str(memory), "--llm", "openai:any", *args)
        assert p.returncode == 2 and words in p.stderr, (args, p.returncode, p.stderr)
        assert not list(tmp_path.glob("memory.sqlite*")), (args, list(tmp_path.iterdir()))


def test_a_cuda_search_without_a_gpu_refuses_before_any_llm_call(cli: Cli,
                                                                   tmp_path: Path) -> None:
    calls: list[str] = []

    def reply(path: str, headers: object, body: dict) -> str:
        calls.append(path)
        return "no kernel"

    httpd, url = serve(reply)
    cli.env.update(OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-test")
    try:
        p = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", "openai:any",
                    "--language", "cuda", "--steps", "2", "--db", str(tmp_path / "run.sqlite"),
                    *CPU, timeout=120)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert p.returncode == 2, p.stderr
    assert "language cuda (--language, [run] language) needs a GPU" in p.stderr, p.stderr
    assert calls == [] and not list(tmp_path.glob("run.sqlite*"))


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


def test_a_second_process_on_a_run_database_in_use_refuses_at_once(cli: Cli,
                                                                   tmp_path: Path) -> None:
    """The database's lock is what a running `adaexplore run` holds; here this test holds it."""
    db = tmp_path / "run.sqlite"
    with open(f"{db}.lock", "w") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        holder.write(str(os.getpid()))
        holder.flush()
        start = time.monotonic()
        p = cli.run("run", "--resume", "--db", str(db), *CPU, timeout=60)
        assert p.returncode == 1, p.stderr
        assert f"the run database {db} is in use" in p.stderr, p.stderr
        assert f"pid {os.getpid()}" in p.stderr
        assert time.monotonic() - start < 20
    p = cli.run("run", "--resume", "--db", str(db), *CPU, timeout=60)  # Free again.
    assert "no run to resume" in p.stderr, p.stderr


def test_a_dead_endpoint_stops_the_run_after_failures_in_a_row(cli: Cli, tmp_path: Path) -> None:
    """Connection refused on every call (nothing listens on port 1): no_kernel steps are not a
    search; after max_failures_in_a_row the run stops with an error naming the errors."""
    config = tmp_path / "breaker.toml"
    config.write_text("[llm]\nmax_attempts = 1\nmax_failures_in_a_row = 3\ncache = false\n")
    cli.env.update(OPENAI_BASE_URL="http://127.0.0.1:1/v1", OPENAI_API_KEY="sk-test")
    start = time.monotonic()
    p = cli.run("run", "--config", str(config), "--task", example("tasks", "relu.py"), "--llm",
                "openai:any", "--steps", "20", "--db", str(tmp_path / "run.sqlite"), *CPU,
                timeout=300)
    assert p.returncode == 1, p.stderr
    assert "stopping the run: 3 LLM calls in a row to openai:any failed" in p.stderr, p.stderr
    assert "127.0.0.1:1" in p.stderr  # The errors name the endpoint.
    # Each failure was said as it happened, with the count towards the limit.
    for k in (1, 2, 3):
        assert f"LLM call failed ({k} in a row, the run stops at 3)" in p.stderr, p.stderr
    assert time.monotonic() - start < 200


def test_a_reply_over_the_size_limit_is_no_kernel_and_not_stored(cli: Cli, tmp_path: Path) -> None:
    httpd, url = serve(lambda path, headers, body: "x" * (3 << 20))  # 3 MiB of text.
    cli.env.update(OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-test")
    db = tmp_path / "run.sqlite"
    try:
        p = cli.run("run", "--task", example("tasks", "relu.py"), "--llm", "openai:big",
                    "--steps", "2", "--db", str(db), "--json", *CPU, timeout=300)
    finally:
        httpd.shutdown()
        httpd.server_close()
    # Every LLM call failed: the steps are recorded, and the run does not exit 0.
    assert p.returncode == 1, p.stderr
    assert '"event":"llm_all_failed"' in p.stderr
    [task] = json.loads(p.stdout)["tasks"]
    assert task["verdicts"] == {"no_kernel": 2}, task
    assert db.stat().st_size < (1 << 20)  # Nothing of the replies was stored.


def _hanging_task(tmp_path: Path) -> Path:
    """The ReLU task, its model hanging while it is built (before any candidate is imported)."""
    source = Path(example("tasks", "relu.py")).read_text()
    task = tmp_path / "hanging_task.py"
    task.write_text(source.replace("        super().__init__()",
                                   "        super().__init__()\n        import time\n"
                                   "        time.sleep(600)", 1))
    assert task.read_text() != source
    return task


def test_a_task_that_hangs_is_a_task_error_and_run_spends_no_more_steps(cli: Cli,
                                                                       tmp_path: Path) -> None:
    task = _hanging_task(tmp_path)
    _, results = cli.eval_json(*FAST, "--timeout", "10", "--task", str(task), "--kernel",
                               example("kernels", "relu", "ok.py"))
    assert results["ok.py"]["verdict"] == "task_error", results["ok.py"]
    assert "stuck during reference" in results["ok.py"]["reason"]

    kernel = Path(example("kernels", "relu", "ok.py")).read_text()
    httpd, url = serve(lambda path, headers, body: f"```python\n{kernel}\n```")
    cli.env.update(OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-test")
    try:
        p = cli.run("run", "--task", str(task), "--llm", "openai:stub", "--steps", "5", "--db",
                    str(tmp_path / "run.sqlite"), "--json", *CPU, "--timeout", "10",
                    timeout=300)
    finally:
        httpd.shutdown()
        httpd.server_close()
    [summary] = json.loads(p.stdout)["tasks"]
    assert summary["status"] == "broken" and summary["steps"] == 1, summary


def _workers_of(pid: int) -> list[int]:
    """The evaluation workers (zygotes) the process `pid` started."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_bytes()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[stat.rfind(b")") + 2:].split()[1]) == pid and b"adaexplore_worker" in cmdline:
            found.append(int(entry.name))
    return found


def test_a_worker_killed_from_outside_twice_is_not_the_candidates_crash(cli: Cli,
                                                                        tmp_path: Path) -> None:
    """kill -TERM of the worker by someone else, twice while one candidate runs: the worker says
    who sent it, the attempts do not count, and the third attempt gives the kernel's own
    verdict (before, two such kills made it a cached crash)."""
    import subprocess
    marker, markers = _job_marker(tmp_path, "importing")
    kernel = tmp_path / "slow.py"
    kernel.write_text(_ok_kernel() + f"\n\nimport time as _t\nopen({marker!r}, 'w').close()"
                      "\n_t.sleep(4)\n")  # Slow to import, and says when it starts.
    (tmp_path / "scratch").mkdir()
    p = subprocess.Popen([cli.binary, "eval", *CPU, "--json", "--slots", "1", "--task",
                          example("tasks", "relu.py"), "--kernel", str(kernel)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(cli.env, TMPDIR=str(tmp_path / "scratch")), cwd=cli.tmp)
    killed: list[int] = []
    deadline = time.monotonic() + 240
    while len(killed) < 2 and time.monotonic() < deadline and p.poll() is None:
        if found := markers():  # The candidate is being imported by the worker's child.
            for path in found:
                path.unlink()
            worker = _workers_of(p.pid)[0]
            subprocess.run(["kill", "-TERM", str(worker)], check=False)
            killed.append(worker)
        time.sleep(0.1)
    out, err = p.communicate(timeout=300)
    assert len(killed) == 2, err
    result = json.loads(out.splitlines()[0])
    assert result["verdict"] == "correct", (result, err[-2000:])
    assert err.count("is stopping: SIGTERM from pid") == 2, err[-2000:]


def test_a_candidate_cannot_write_outside_its_job_folder_and_its_result_says_so(
        cli: Cli, tmp_path: Path) -> None:
    """In its sandbox a candidate writes only in its job folder (and its cache, its private
    /dev/shm and /tmp); each result names the protections in force, as the worker's self-test
    verified them. --no-sandbox says it is off, and the same write lands."""
    target = tmp_path / "escaped.txt"
    kernel = tmp_path / "writer.py"
    kernel.write_text(_ok_kernel() + f"""

import os as _os
for _path in ({str(target)!r}, _os.path.join(_os.getcwd(), "inside.txt")):
    try:
        open(_path, "w").write("x")
        print("wrote", _path)
    except OSError as _e:
        print("refused", _path, _e.strerror)
""")
    _, results = cli.eval_json(*FAST, "--task", example("tasks", "relu.py"), "--kernel",
                               str(kernel))
    result = results["writer.py"]
    assert result["verdict"] == "correct", result
    protections = result["details"]["containment"]
    for name in ("pid_namespace", "network_namespace", "mount_view", "no_capabilities",
                 "no_new_privs", "landlock", "seccomp"):
        assert protections[name] is True, (name, protections)
    assert all(v.startswith("held") for v in protections["verified"].values()), protections
    assert not target.exists()
    _, open_results = cli.eval_json(*FAST, "--no-sandbox", "--task", example("tasks", "relu.py"),
                                    "--kernel", str(kernel))
    assert open_results["writer.py"]["details"]["containment"]["off"] == "--no-sandbox"
    assert target.exists()  # The flag is what made the difference.


def test_a_missing_protection_refuses_by_default_and_says_what_to_install(
        cli: Cli, tmp_path: Path) -> None:
    """A machine without libseccomp's Python binding (a module of that name that fails to
    import, first on PYTHONPATH): nothing is evaluated unless the user says to go on."""
    shim = tmp_path / "no_seccomp"
    shim.mkdir()
    (shim / "pyseccomp.py").write_text("raise ImportError('no libseccomp here (simulated)')\n")
    cli.env["PYTHONPATH"] = str(shim)
    args = ["--task", example("tasks", "relu.py"), "--kernel", example("kernels", "relu", "ok.py")]
    p = cli.run("eval", *CPU, *args)
    assert p.returncode != 0 and p.stdout.strip() == "", p.stdout
    # Only the filter is named: the network namespace holds without it (a false report once).
    assert "the candidate sandbox is not complete here: seccomp: " in p.stderr, p.stderr
    assert "simulated" in p.stderr and "pip install pyseccomp" in p.stderr, p.stderr
    assert "--no-require-sandbox" in p.stderr
    code, results = cli.eval_json(*FAST, "--no-require-sandbox", *args)
    assert code == 0 and results["ok.py"]["verdict"] == "correct"
    containment = results["ok.py"]["details"]["containment"]
    assert containment["seccomp"] is False and "simulated" in containment["reasons"]["seccomp"]
    p = cli.run("eval", *CPU, "--no-require-sandbox", *args)
    assert "--no-require-sandbox: candidates run without seccomp" in p.stderr, p.stderr
    # --no-sandbox is the user's own choice: nothing to require.
    code, results = cli.eval_json(*FAST, "--no-sandbox", *args)
    assert code == 0 and results["ok.py"]["details"]["containment"]["off"] == "--no-sandbox"


def test_a_statically_rejected_candidate_is_never_imported(cli: Cli, tmp_path: Path) -> None:
    """A source that breaks a rule the profile rejects is rejected before any of it runs: its
    import-time code (here, a marker file) never executes."""
    marker = _shared_memory_file(tmp_path, "imported")
    kernel = tmp_path / "threaded.py"
    kernel.write_text(_ok_kernel() + f"\n\nimport threading\nopen({str(marker)!r}, 'w').close()\n")
    _, results = cli.eval_json(*FAST, "--no-sandbox", "--task", example("tasks", "relu.py"),
                               "--kernel", str(kernel))  # Where the test sees the marker.
    result = results["threaded.py"]
    assert result["verdict"] == "rejected" and result["check"] == "threads", result
    assert not marker.exists()
