"""compute-sanitizer on a candidate (the `sanitize` option): each tool the C++ side names runs the
candidate's model once on the task's inputs, in a fresh process started under the tool
(sanitized_run.py), inside this evaluation's sandbox. This process never imports the candidate;
it starts the tool, waits for it within the time the options give, and reports how each run
ended and what the tool printed. Whether that keeps the kernel from being the best is the C++
side's decision.

How a run ended comes from the tool's exit status, which only its parent (this process) sees:
the tool exits with ERRORS_EXIT when it found an error, else with the target's own status (0 also
from a target that exits before its call: a kernel that detects the tool can skip its own code;
the sanitizer finds honest bugs, it is no integrity check). The lines it prints only describe:
the candidate shares that output (it is the target's too), so it may add to them or truncate
them; the status decides. The output goes to a file without a name, read back through this
process's own descriptor.

Before the candidate's runs, the first tool runs the harness's own target (sanitized_run.probe:
the device started, one of torch's kernels, no task, no candidate). If that does not end clean,
the tool cannot run CUDA in this sandbox (the H100 image of 2026-12-07: cudaGetDeviceCount's
"Error 304: OS call failed" before the first instrumented call), and every tool is `unusable`:
the C++ side says not run, which bars nothing. No candidate code has run by then, so no
candidate can make its own runs unusable.

The caching allocator is off in the target (PYTORCH_NO_CUDA_MEMORY_CACHING): every tensor is an
allocation of its own, and memcheck's padding after each makes a read past an input's end an
access outside any allocation rather than into the next tensor's storage.
"""

from __future__ import annotations

import ctypes
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

from ..process import process_tree
from ..protocol.job import Job

ERRORS_EXIT = 86  # --error-exitcode: the tool found at least one error.
TARGET_FAILED = 3  # sanitized_run.py: the candidate (or the task) raised before its call ended.
PADDING_BYTES = 512
PRINT_LIMIT = 20
LOG_READ_BYTES = 256 << 10  # What of a run's output is read back; a flood is cut.
TAIL_CHARS = 2000
RECORDS_KEPT = 5
# Each tool's own settings: memcheck pads every allocation and leaves leaks alone (PyTorch keeps
# its memory until exit); racecheck reports its analysis (one line per race, not per access).
TOOL_ARGS = {
    "memcheck": ["--padding", str(PADDING_BYTES), "--leak-check", "no"],
    "racecheck": ["--racecheck-report", "analysis"],
    "synccheck": [],
    "initcheck": [],
}
PREFIX = "========="
# Counts of at most nine digits: a longer one is no tool's (a candidate printed it), and would
# not fit the facts' integers.
SUMMARY = re.compile(r"(?:ERROR SUMMARY: (\d{1,9}) errors?|RACECHECK SUMMARY: \d+ hazards? "
                     r"displayed \((\d{1,9}) errors?)")
# Headings of the tool's lines that are not errors: warnings, the target's exit, its own notes.
NOT_ERRORS = ("Warning", "Target application", "COMPUTE-SANITIZER", "ERROR SUMMARY",
              "RACECHECK SUMMARY", "(")
POLL_S = 0.25
PR_SET_DUMPABLE = 4
# Set at worker start (find): the tool's path, or why there is none.
FOUND: dict[str, str] = {"missing": "not looked for"}


def find(given: str = "") -> dict[str, str]:
    """Where compute-sanitizer is for this worker: `given` (--compute-sanitizer), else PATH,
    $CUDA_HOME/bin, /usr/local/cuda/bin and the CUDA wheel's folder. {"path", "version"}, or
    {"missing": why}. Runs `--version` (no GPU, no CUDA initialisation)."""
    candidates = [given] if given else [
        shutil.which("compute-sanitizer") or "",
        os.path.join(os.environ.get("CUDA_HOME", ""), "bin", "compute-sanitizer")
        if os.environ.get("CUDA_HOME") else "",
        "/usr/local/cuda/bin/compute-sanitizer",
        *_wheel_paths()]
    found = next((os.path.realpath(c) for c in candidates if c and os.access(c, os.X_OK)), "")
    if not found:
        where = given or "PATH, $CUDA_HOME/bin, /usr/local/cuda/bin and the nvidia wheels"
        return {"missing": f"no executable compute-sanitizer at {where}"}
    try:
        run = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=30,
                             check=False)
        version = next((line.strip() for line in run.stdout.splitlines()
                        if line.strip().startswith("Version")), run.stdout.strip()[:80])
    except (OSError, subprocess.SubprocessError) as e:
        return {"missing": f"{found} does not run: {type(e).__name__}: {e}"}
    return {"path": found, "version": version}


def _wheel_paths() -> list[str]:
    """compute-sanitizer as the nvidia-cuda-sanitizer-api wheel installs it."""
    out = []
    for folder in sys.path:
        for cuda in ("cu13", "cu12", ""):
            out.append(os.path.join(folder, "nvidia", cuda, "compute-sanitizer",
                                    "compute-sanitizer"))
    return out


def probe(job: Job, task_path: str, job_dir: str, into: list[dict[str, Any]]) -> bool:
    """The harness's own target under the first tool, before any candidate code: whether the
    tool can run CUDA in this sandbox. Where it cannot, appends every tool's fact (`unusable`,
    never the kernel's failure) to `into` and returns False. Writes the target's job file."""
    told = dataclasses.asdict(job)
    told["nonce"] = ""  # The candidate reads this file: nothing that authenticates a result.
    with open(_job_file(job_dir), "w", encoding="utf-8") as f:
        json.dump(told, f)
    # The tool and its target run as this process's user, and may write the namespace's /proc
    # up to the target's own narrowing (sandbox.own_proc_only): this process's memory, descriptors
    # and settings are no longer theirs to open (nor the candidate's, whose target is no tool).
    _not_dumpable()
    first = job.options.sanitize[0] if job.options.sanitize else ""
    ran = _run_tool(first, job, _job_file(job_dir), task_path, "", job_dir) if first else {}
    if ran and ran["ended"] not in ("clean", "missing"):
        for tool in job.options.sanitize:
            into.append({**ran, "tool": tool, "ended": "unusable",
                         "wall_s": ran["wall_s"] if tool == first else 0.0})
        return False
    return True


def _job_file(job_dir: str) -> str:
    return os.path.join(job_dir, "sanitize-job.json")


def run(job: Job, task_path: str, candidate_path: str, job_dir: str,
        into: list[dict[str, Any]]) -> None:
    """Runs each tool of job.options.sanitize on the candidate in turn (after `probe`),
    appending one fact per tool to `into` as it ends (what a later tool's failure cannot take
    back)."""
    job_file = _job_file(job_dir)
    for tool in job.options.sanitize:
        try:
            into.append(_run_tool(tool, job, job_file, task_path, candidate_path, job_dir))
        except Exception as e:  # noqa: BLE001 - the candidate ran before: a fact, never a crash.
            into.append({"tool": tool, "ended": "tool_failed", "exit_code": None,
                         "signal": None, "wall_s": 0.0, "errors": None, "records": [],
                         "tail": f"the run could not be made or read: {type(e).__name__}: {e}"})
        finally:
            # Whatever the run left (a daemon of the target's) ends before the next one starts.
            process_tree.kill_descendants(os.getpid(), set())


def _not_dumpable() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"prctl(PR_SET_DUMPABLE): {os.strerror(errno)}")


def command(tool: str, path: str, target: list[str]) -> list[str]:
    return [path, "--tool", tool, "--error-exitcode", str(ERRORS_EXIT),
            "--check-exit-code", "no", "--print-limit", str(PRINT_LIMIT),
            "--target-processes", "all", "--launch-timeout", "120",
            "--show-backtrace", "device", *TOOL_ARGS.get(tool, []), *target]


def _run_tool(tool: str, job: Job, job_file: str, task_path: str, candidate_path: str,
              job_dir: str) -> dict[str, Any]:
    fact: dict[str, Any] = {"tool": tool, "ended": "tool_failed", "exit_code": None,
                            "signal": None, "wall_s": 0.0, "errors": None, "records": [],
                            "tail": ""}
    path = FOUND.get("path", "")
    if not path:
        fact["tail"] = FOUND.get("missing", "compute-sanitizer not found")
        fact["ended"] = "missing"
        return fact
    # No candidate: the harness's probe (sanitized_run.probe).
    target = [sys.executable, "-m", "adaexplore_worker.evaluation.sanitized_run",
              *(["--job", job_file, "--task", task_path, "--candidate", candidate_path]
                if candidate_path else ["--probe"])]
    env = dict(os.environ, PYTORCH_NO_CUDA_MEMORY_CACHING="1")
    started = time.perf_counter()
    # A file without a name: the candidate reaches it only through its own output descriptors.
    with tempfile.TemporaryFile(dir=job_dir) as log:
        try:
            # Its own process group stays this one's: a pause of the evaluation pauses it too.
            process = subprocess.Popen(command(tool, path, target), stdin=subprocess.DEVNULL,
                                       stdout=log, stderr=subprocess.STDOUT, env=env)
        except OSError as e:
            fact["tail"] = f"could not start {path}: {e}"
            return fact
        code = _wait(process, job.options.sanitize_timeout_s)
        if code is None:
            process_tree.kill_descendants(os.getpid(), set())
            process.wait()
        fact["wall_s"] = round(time.perf_counter() - started, 3)
        fact.update(read_output(_read(log)))
    if code is None:
        fact["ended"] = "timed_out"
    elif code < 0:
        fact["ended"], fact["signal"] = "signal", -code
    else:
        fact["exit_code"] = code
        fact["ended"] = ("clean" if code == 0 else "errors" if code == ERRORS_EXIT
                         else "target_failed" if code == TARGET_FAILED else "tool_failed")
    return fact


def _wait(process: subprocess.Popen, limit_s: float) -> int | None:
    """The run's exit status, or None once it has run `limit_s`. Time this process spent
    stopped (the lock patience pauses the evaluation's group while a timing holds the GPU, the
    run with it) does not count: a gap between two looks is credited at most one poll."""
    active, last = 0.0, time.monotonic()
    while (code := process.poll()) is None:
        time.sleep(POLL_S)
        now = time.monotonic()
        active += min(now - last, 2 * POLL_S)
        last = now
        if active > limit_s:
            return None
    return code


def _read(log: Any) -> str:
    """The head of the run's output and its end, read back through this process's own
    descriptor."""
    try:
        size = os.fstat(log.fileno()).st_size
        log.seek(0)
        head = log.read(LOG_READ_BYTES)
        tail = b""
        if size > LOG_READ_BYTES:
            log.seek(max(LOG_READ_BYTES, size - TAIL_CHARS * 4))
            tail = b"\n...\n" + log.read(TAIL_CHARS * 4)
    except OSError as e:
        return f"(the output could not be read: {e})"
    return (head + tail).decode("utf-8", "replace")


def read_output(output: str) -> dict[str, Any]:
    """The tool's lines in `output`: the error count its summaries give (the largest, if a line
    was added to them), the first error records (a heading and its first detail), and the
    output's tail."""
    errors: int | None = None
    records: list[str] = []
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith(PREFIX):
            continue
        text = line[len(PREFIX) + 1:]  # "========= Invalid ...": a heading; more spaces: detail.
        if match := SUMMARY.search(text):
            count = int(match.group(1) or match.group(2))
            errors = count if errors is None else max(errors, count)
            continue
        if (text.startswith(" ") or not text.strip() or text.startswith(NOT_ERRORS)
                or len(records) >= RECORDS_KEPT):
            continue
        detail = lines[i + 1][len(PREFIX):].strip() if (
            i + 1 < len(lines) and lines[i + 1].startswith(PREFIX + "  ")) else ""
        records.append(f"{text.strip()} {detail}".strip()[:300])
    return {"errors": errors, "records": records, "tail": output[-TAIL_CHARS:]}
