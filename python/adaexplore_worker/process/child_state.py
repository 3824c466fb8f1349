"""What the zygote knows of one evaluation child while it runs: its process, its channel, its
limit and what it waited, its phase, its results so far, its hold on the GPU lock and its slot,
and whether it is paused (lock_patience.py). A plain record; zygote.py and lock_patience.py act
on it."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..correctness import refcache
from ..protocol.channel import Channel
from . import job_files


@dataclass
class Child:
    job_id: str
    pid: int
    channel: Channel
    nonce: str
    deadline: float
    memory_limit_bytes: int
    files: job_files.JobFiles
    started: float = field(default_factory=time.monotonic)
    phase: str = "starting"
    results: list[dict[str, Any]] = field(default_factory=list)
    stray_lines: int = 0
    killed_for: str | None = None
    peak_rss: int = 0
    lock: str | None = None
    open: bool = True
    static: dict[str, Any] | None = None
    checked: dict[str, Any] | None = None  # The facts after the correctness trials.
    plan: refcache.Plan | None = None  # Its use of the reference cache.
    # The judge's (judge.py): the file its outputs are recorded in, the references' file (-1:
    # none), and the criterion, atol and rtol it compares with.
    outputs_fd: int = -1
    references_fd: int = -1
    tolerance: tuple[str, float, float] = ("scaled", 0.0, 0.0)
    budget_s: float = 0  # The job's limit: for the task's phases, then again for the candidate.
    waited_s: float = 0  # Time not counted against the candidate (see _extend).
    wait_since: float | None = None  # Asked for the GPU lock or a slot, not granted yet.
    holds_slot: bool = False
    last_notice: float = 0.0  # When the caller last heard the limit moved during a wait.
    attacked_with: str = ""  # The stop signal its tree sent the zygote, if it did.
    asked_lock: float | None = None  # When it asked for the GPU lock, until it has it.
    shared_since: float | None = None  # When it last got the GPU lock shared (held now).
    paused: bool = False  # Stopped (SIGSTOP) while timings go: see lock_patience.py.
    paused_s: float = 0  # Time paused, credited to its limit up to its budget.
    pauses: int = 0
    drain_since: float = 0  # Paused at; on a GPU it holds the lock until its kernels end.
    drain_from_us: int = 0  # NVML samples after this (time.time() in microseconds) count.
    last_busy: float = 0  # When NVML last showed its kernels running.
    gpu_busy_s: float = 0  # Stopped for good: how long its kernels ran on after its pause.
    # The GPU's clocks (clocks.py) when its timed runs began and when it gave the exclusive lock
    # back: facts.timing.gpu_state.
    gpu_before: dict[str, Any] | None = None
    gpu_after: dict[str, Any] | None = None
    # The zygote's sweeps of its threads (watchdog.check_threads): facts.threads_checked.
    threads_checked: dict[str, Any] = field(default_factory=lambda: {
        "sweeps": 0, "threads_max": 0, "unconfined": []})
