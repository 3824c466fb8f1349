"""What the zygote reports for an evaluation child that ended: its own result when it sent one
(with the job's nonce), else what its end says (killed at its limit, for memory, cancelled, for
attacking the worker, or dead), then what only the zygote knows of it (its wall time and waits,
its peak memory, its output's tails, the GPU's clocks around its timing, its pauses), checked
against the protocol's schema."""

from __future__ import annotations

import os
import time
from typing import Any

from ..evaluation import errors
from ..protocol.decode import ProtocolError
from ..protocol.facts import TASK_PHASES, Status, check_facts
from . import job_files
from .child_state import Child


def final(child: Child, status: int, containment: dict[str, Any],
          memory_limit_bytes: int) -> dict[str, Any]:
    """The facts of the result message (status: the child's wait status)."""
    facts = reported(child, status, memory_limit_bytes)
    if isinstance(facts.get("timing"), dict) and child.gpu_before is not None:
        facts["timing"]["gpu_state"] = {"before": child.gpu_before, "after": child.gpu_after}
    facts["wall_s"] = round(time.monotonic() - child.started, 4)
    facts["waited_s"] = round(child.waited_s, 4)
    facts["child_pid"] = child.pid
    facts["peak_rss_mb"] = round(child.peak_rss / (1 << 20), 1)
    facts["containment"] = containment
    if child.static is not None:
        facts["static"] = child.static  # Read before the fork, so a child that dies has them.
    facts["stdout"] = job_files.tail(child.files.job_dir, "stdout.txt")
    facts["stderr"] = job_files.tail(child.files.job_dir, "stderr.txt")
    if child.stray_lines:
        facts["stray_lines"] = child.stray_lines
    if child.threads_checked["sweeps"]:
        facts["threads_checked"] = child.threads_checked
    if child.pauses and child.killed_for is None and isinstance(facts.get("notes"), list):
        facts["notes"].append(f"paused {child.pauses} time(s), {child.paused_s:.1f} s in all, "
                              f"while other candidates were timed: its check held the GPU "
                              f"for longer than the lock patience")
    try:
        check_facts(facts)
    except ProtocolError as e:  # The harness's own bug: say so rather than send it on.
        facts = {"status": Status.HARNESS_ERROR, "phase": child.phase,
                 "error": {"type": "ProtocolError", "message": str(e), "traceback": "",
                           "triton_compile": False, "cuda_error": None,
                           "out_of_memory": False}}
    return facts


def reported(child: Child, status: int, memory_limit_bytes: int) -> dict[str, Any]:
    """The child's own result, or what its end says."""
    exit_info = {"exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                 "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                 "phase": child.phase}
    if child.killed_for in ("timeout", "gpu_busy"):
        # Killed after its trials (while timing, say): they stand, and the phase says where
        # it stopped, so a slow correct kernel is told from one that never finished a trial.
        kept = {k: v for k, v in (child.checked or {}).items()
                if k in ("trials", "determinism", "determinism_passed", "reference",
                         "runtime_findings", "flags_changed_by_import", "notes", "phases")}
        facts = {**kept, "status": Status.TIMEOUT, "limit_s": child.budget_s, **exit_info}
        if child.killed_for == "gpu_busy":
            facts["message"] = (f"stopped during {child.phase}: its kernels kept the GPU busy "
                                f"for {child.gpu_busy_s:.1f} s after its process was paused "
                                f"for another candidate's timing (a kernel that does not end)")
        return facts
    if child.killed_for == "memory":
        return {"status": Status.MEMORY_LIMIT,
                "memory_limit_mb": round(memory_limit_bytes / (1 << 20), 1),
                **exit_info}
    if child.killed_for == "cancelled":
        return {"status": Status.CANCELLED, **exit_info}
    if child.killed_for == "unconfined":
        return {"status": Status.HARNESS_ERROR, **exit_info, "error": errors.unclassified(
            "Unconfined", "the worker found threads of the evaluation without the sandbox's "
            "confinement (" + "; ".join(child.threads_checked["unconfined"][:4]) + "): it "
            "stopped the evaluation; no result of it is the kernel's", "")}
    if child.killed_for == "attacked":
        return {"status": Status.CRASH, **exit_info,
                "message": f"the candidate's process tree sent {child.attacked_with} to the "
                           f"evaluation worker; it was killed"}
    valid = [r for r in child.results if r.get("nonce") == child.nonce
             and isinstance(r.get("facts"), dict)]
    if len(child.results) > 1 or (child.results and not valid):
        return {"status": Status.PROTOCOL_VIOLATION, **exit_info,
                "message": f"the candidate process sent {len(child.results)} result messages "
                           f"({len(valid)} with the job's nonce); only the harness may send "
                           f"one"}
    if valid:
        facts = dict(valid[0]["facts"])
        broken = _schema_problem(facts)
        if broken and child.phase not in TASK_PHASES:
            # The harness checks its facts before sending them (child_process._checked): one
            # that breaks the schema once candidate code has run was written by that code.
            return {"status": Status.PROTOCOL_VIOLATION, **exit_info,
                    "message": f"the result from the candidate's process breaks the protocol "
                               f"({broken[:200]}) after the harness's own check passed it: "
                               f"only the harness may write it"}
        facts.setdefault("exit", exit_info)
        return facts
    return {"status": Status.CRASH, **exit_info}


def _schema_problem(facts: dict[str, Any]) -> str:
    """What in a child's own facts the schema refuses ("" when nothing)."""
    try:
        check_facts(facts)
        return ""
    except ProtocolError as e:
        return str(e)
