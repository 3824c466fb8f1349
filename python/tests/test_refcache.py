"""The reference cache: the zygote's index of sealed memory files (bound, eviction, replacement,
files in flight, what it refuses) and, with real worker processes, reuse across jobs of one key,
jobs of one key that arrive together, a candidate that tries to change an entry, and jobs of
another key."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Worker, kernel, task

from adaexplore_worker.correctness import refcache


@pytest.fixture
def caches():
    """Makes indexes and closes their files after the test: no memory file outlives it."""
    made: list[refcache.ReferenceCache] = []

    def make(max_bytes: int) -> refcache.ReferenceCache:
        made.append(refcache.ReferenceCache(max_bytes))
        return made[-1]
    yield make
    for cache in made:
        cache.close()


def _fill(cache: refcache.ReferenceCache, key: str, job: str, size: int) -> int:
    """What a child does with its plan: fills and seals the file; the zygote's record of it."""
    plan = cache.plan(key, job)
    assert plan.store_fd is not None and plan.read_fd is None
    assert cache.in_flight(key)
    refcache.write_sealed(plan.store_fd, bytes(size))
    assert cache.stored(key, job, size)
    assert not cache.in_flight(key)
    return plan.store_fd


def test_the_index_keeps_the_most_recently_used_within_its_bound(caches) -> None:
    cache = caches(250)
    _fill(cache, "a", "job-a", 100)
    _fill(cache, "b", "job-b", 100)
    assert cache.lookup("a") is not None  # Now b is the least recently used.
    _fill(cache, "c", "job-c", 100)
    assert set(cache.entries) == {"a", "c"}
    assert cache.total_bytes() == 200
    assert cache.plan("a", "job-d").read_fd == cache.entries["a"].fd


def test_an_entry_larger_than_the_bound_or_unsealed_or_not_its_own_is_not_kept(caches) -> None:
    cache = caches(50)
    big = cache.plan("big", "job-1")
    assert big.store_fd is not None
    refcache.write_sealed(big.store_fd, bytes(100))
    assert not cache.stored("big", "job-1", 100)
    assert cache.lookup("big") is None and not cache.in_flight("big")
    # Known too big: later jobs of the task neither fill a file nor wait for one another.
    assert cache.plan("big", "job-5") is None and not cache.in_flight("big")

    open_file = cache.plan("open", "job-2")
    assert open_file.store_fd is not None
    os.pwrite(open_file.store_fd, bytes(10), 0)  # Written, never sealed: anyone may change it.
    assert not cache.stored("open", "job-2", 10)

    theirs = cache.plan("k", "job-3")
    assert theirs.store_fd is not None
    refcache.write_sealed(theirs.store_fd, bytes(10))
    assert not cache.stored("k", "job-4", 10)  # Another job cannot claim job-3's file.
    assert not cache.stored("k", "job-3", 11)  # Nor a size the file does not have.
    assert cache.lookup("k") is None


def test_a_sealed_entry_cannot_be_changed_by_anyone(caches) -> None:
    cache = caches(1000)
    fd = _fill(cache, "k", "job", 100)
    for attempt in (lambda: os.pwrite(fd, b"x", 0), lambda: os.ftruncate(fd, 0),
                    lambda: os.ftruncate(fd, 200)):
        with pytest.raises(PermissionError):
            attempt()
    reopened = os.open(f"/proc/self/fd/{fd}", os.O_RDWR)  # What a same-user process could do.
    try:
        with pytest.raises(PermissionError):
            os.write(reopened, b"x")
    finally:
        os.close(reopened)
    import mmap
    with pytest.raises(PermissionError):
        mmap.mmap(fd, 100, mmap.MAP_SHARED, mmap.PROT_WRITE)


def test_a_job_that_leaves_its_phase_without_storing_frees_its_key(caches) -> None:
    cache = caches(1000)
    cache.plan("k", "job-1")
    assert cache.in_flight("k")
    cache.forget("job-1")
    assert not cache.in_flight("k")
    assert cache.plan("k", "job-2").store_fd is not None


def test_the_child_reads_what_it_stored_and_refuses_an_unsealed_file(caches) -> None:
    cache = caches(1 << 20)
    plan = cache.plan("k", "job")
    sent: list[dict] = []
    assert refcache.store(plan, {"x": 1}, sent.append) == "stored"
    assert sent == [{"type": "references", "key": "k", "bytes": sent[0]["bytes"]}]
    assert cache.stored("k", "job", sent[0]["bytes"])
    payload, outcome = refcache.read(cache.plan("k", "job-2"))
    assert outcome == "hit" and payload is not None and payload["x"] == 1

    tiny = caches(8)
    small_plan = tiny.plan("k", "job")
    sent.clear()
    assert refcache.store(small_plan, {"x": 1}, sent.append) == "not_stored"
    assert sent[0]["bytes"] > 8  # Said, so the zygote knows the task does not fit.
    assert not tiny.stored("k", "job", sent[0]["bytes"]) and tiny.plan("k", "job-2") is None

    unsealed = os.memfd_create("t", os.MFD_ALLOW_SEALING)
    written = io.BytesIO()
    refcache.encode({"x": 2}, written)
    os.write(unsealed, written.getvalue())
    assert refcache.read(refcache.Plan("k", unsealed, None, 1 << 20)) == (None, "changed")
    os.close(unsealed)


# Runs as a script in a fresh interpreter: its peak resident memory is what the store and the
# read added over a tensor already resident. The memory file's pages are not the process's.
PEAKS = """
import json, os, subprocess, sys, torch
from adaexplore_worker.correctness import refcache
def peak():  # This process's own high-water mark (ru_maxrss would carry its parent's over exec).
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) << 10 for line in status if line.startswith("VmHWM"))
if sys.argv[1] == "read":  # A fresh process: its peak is the read's alone.
    fd = int(sys.argv[2])
    torch.zeros(1)
    before = peak()
    got, read = refcache.read(refcache.Plan("k", fd, None, 1 << 40))
    assert read == "hit" and got["references"][0]["outputs"][0][-1] == (32 << 20) - 1
    print(peak() - before)
    sys.exit()
cache = refcache.ReferenceCache(int(sys.argv[1]))
outputs = torch.arange(32 << 20, dtype=torch.float64)  # 256 MiB
payload = {"references": [{"outputs": [outputs, outputs[:10]]}], "notes": []}
before = peak()
sent = []
outcome = refcache.store(cache.plan("k", "job"), payload, sent.append)
peaks = {"outcome": outcome, "bytes": sent[0]["bytes"], "store": peak() - before}
if cache.stored("k", "job", sent[0]["bytes"]):
    fd = cache.entries["k"].fd
    peaks["read"] = int(subprocess.run([sys.executable, __file__, "read", str(fd)], pass_fds=[fd],
                                       check=True, capture_output=True, text=True).stdout)
print(json.dumps(peaks))
"""


@pytest.mark.parametrize("bound_mib", [16, 1024])
def test_references_cost_no_second_copy_in_host_memory(bound_mib: int, tmp_path: Path) -> None:
    """A task's references are sized from their tensors before anything is written, written
    one tensor at a time and read back the same way: references over the bound cost nothing
    (the huge task's first candidate on the H200 was killed over its memory share by the copies
    the store left), and those that fit cost no copy of the whole entry."""
    script = tmp_path / "peaks.py"
    script.write_text(PEAKS)
    out = subprocess.run([sys.executable, str(script), str(bound_mib << 20)],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(Path(refcache.__file__).parents[2])})
    assert out.returncode == 0, out.stderr
    peaks = json.loads(out.stdout)
    mib = 1 << 20
    assert peaks["bytes"] >= 256 * mib  # The view counts its whole storage, as torch.save does.
    if bound_mib < 256:
        assert peaks["outcome"] == "not_stored" and peaks["store"] < 32 * mib, peaks
    else:
        assert peaks["outcome"] == "stored" and peaks["store"] < 64 * mib, peaks
        assert 200 * mib < peaks["read"] < 320 * mib, peaks  # The tensor itself, no more.


@pytest.fixture(scope="module")
def cached_worker(tmp_path_factory: pytest.TempPathFactory):
    w = Worker(tmp_path_factory.mktemp("refcache"), slots=2, reference_cache_mb=64)
    yield w
    w.close()


def _trial_figures(facts: dict) -> list:
    return [(t["seed"], t["distribution"], t["passed"],
             [o["values"]["max_abs_err"] for o in t["outputs"]]) for t in facts["trials"]]


def _results(w: Worker, ids: list[str]) -> dict[str, dict]:
    """Every result of `ids`, in whatever order they come."""
    got: dict[str, dict] = {}
    while len(got) < len(ids):
        message = w.channel.read_blocking()
        if message.get("type") == "result" and message.get("id") in ids:
            got[message["id"]] = message["facts"]
    return got


def test_the_size_sets_references_are_kept_with_the_tasks_own(cached_worker: Worker) -> None:
    """The size_sets option's references are stored with the task's: a later job of the key
    takes them from the cache and runs the same set trials under the same judge indices."""
    sets = [{"name": "uneven", "sizes": {"dim": 1001, "batch_size": 17}, "trials": 2}]
    stored = cached_worker.evaluate(task("relu"), kernel("relu", "ok"),
                                    options={"size_sets": sets}, reference_key="relu-sets")
    hit = cached_worker.evaluate(task("relu"), kernel("relu", "ok"),
                                 options={"size_sets": sets}, reference_key="relu-sets")
    assert (stored["reference_cache"], hit["reference_cache"]) == ("stored", "hit")
    own = len(stored["trials"])
    for facts in (stored, hit):
        (checked,) = facts["size_sets"]
        assert checked["ran"] and [t["index"] for t in checked["trials"]] == [own, own + 1]
        assert checked["resize"]["changed"]["dim"] == [1000, 1001]
        assert {t["index"]: t["passed"] for t in facts["judge"]["trials"]} == \
            {i: True for i in range(own + 2)}


def test_jobs_of_one_key_share_references_and_reach_the_same_facts(cached_worker: Worker) -> None:
    first = cached_worker.evaluate(task("gemm_relu"), kernel("gemm_relu", "ok"),
                                   reference_key="gemm-relu-1")
    second = cached_worker.evaluate(task("gemm_relu"), kernel("gemm_relu", "ok"),
                                    reference_key="gemm-relu-1")
    assert first["reference_cache"] == "stored"
    assert second["reference_cache"] == "hit"
    assert "reference.outputs" in first["phases"] and "reference.outputs" not in second["phases"]
    assert _trial_figures(first) == _trial_figures(second)
    for key in ("reference", "null_kernels", "roofline"):
        assert first[key] == second[key], key
    assert second["status"] == "ok" and "timing" in second
    assert not second.get("patched") and not second.get("runtime_findings"), second
    # A wrong kernel is still wrong against cached references.
    wrong = cached_worker.evaluate(task("relu"), kernel("relu", "wrong_values"),
                                   reference_key="relu-1")
    again = cached_worker.evaluate(task("relu"), kernel("relu", "wrong_values"),
                                   reference_key="relu-1")
    assert again["reference_cache"] == "hit"
    assert wrong["trials"][0]["passed"] is False and again["trials"][0]["passed"] is False


def test_jobs_of_one_key_that_arrive_together_make_the_references_once(
        cached_worker: Worker) -> None:
    ids = [cached_worker.submit(task("relu"), kernel("relu", "ok"), reference_key="relu-3")
           for _ in range(3)]
    outcomes = sorted(f["reference_cache"] for f in _results(cached_worker, ids).values())
    assert outcomes == ["hit", "hit", "stored"]


TAMPER = '''"""Hostile: looks for its worker's reference files through /proc and tries to change
them. Its worker's processes are those that name its scratch folder (the job folder's
grandparent) or work in it: other workers of the machine (other tests running beside this one)
are not its target, and their unsealed files in flight are checked by their own writers."""
import os
import torch.nn as nn

scratch = os.path.dirname(os.path.dirname(os.getcwd()))


def ours(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if scratch.encode() in f.read():
                return True
        return os.readlink(f"/proc/{pid}/cwd").startswith(scratch)
    except OSError:
        return False


tried, changed = 0, 0
for pid in os.listdir("/proc"):
    if not pid.isdigit() or not ours(pid):
        continue
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        continue
    for fd in fds:
        path = f"/proc/{pid}/fd/{fd}"
        try:
            if "memfd:adaexplore-references" not in os.readlink(path):
                continue
            tried += 1
            target = os.open(path, os.O_RDWR)
            os.pwrite(target, bytes(64), 128)
            changed += 1
        except OSError:
            pass
print(f"tampering: tried {tried}, changed {changed}")


class ModelNew(nn.Module):
    def forward(self, x):
        return x.clamp(min=0)
'''


def test_a_candidate_cannot_change_an_entry(cached_worker: Worker, tmp_path: Path) -> None:
    hostile = tmp_path / "tamper.py"
    hostile.write_text(TAMPER)
    first = cached_worker.evaluate(task("relu"), kernel("relu", "ok"), reference_key="relu-2")
    assert first["reference_cache"] == "stored"
    attack = cached_worker.evaluate(task("relu"), str(hostile), reference_key="relu-2")
    assert "changed 0" in attack["stdout"], attack["stdout"]
    after = cached_worker.evaluate(task("relu"), kernel("relu", "wrong_values"),
                                   reference_key="relu-2")
    assert after["reference_cache"] == "hit"
    assert _trial_figures(after)[0][2] is False  # Still judged against the true references.
    assert "reference_cache" not in cached_worker.evaluate(task("relu"), kernel("relu", "ok"))


def test_without_the_sandbox_a_candidate_still_cannot_change_an_entry(tmp_path: Path) -> None:
    """Without the sandbox the candidate sees the worker's /proc and runs as its user: the seal,
    not the view, is what keeps the entries."""
    hostile = tmp_path / "tamper.py"
    hostile.write_text(TAMPER)
    (tmp_path / "bare").mkdir()
    w = Worker(tmp_path / "bare", reference_cache_mb=64, sandbox=False)
    try:
        assert w.evaluate(task("relu"), kernel("relu", "ok"),
                          reference_key="relu")["reference_cache"] == "stored"
        attack = w.evaluate(task("relu"), str(hostile), reference_key="relu")
        assert "changed 0" in attack["stdout"] and "tried 0" not in attack["stdout"], \
            attack["stdout"]
        after = w.evaluate(task("relu"), kernel("relu", "ok"), reference_key="relu")
        assert after["reference_cache"] == "hit" and all(t["passed"] for t in after["trials"])
    finally:
        w.close()


ALONE = {"interleave_reference": False, "fresh_inputs_per_run": False}


def test_a_reference_timed_on_its_own_is_timed_once_per_task_and_checked_for_drift(
        cached_worker: Worker) -> None:
    """Profiles that time the reference on its own (paper, reference, kernelbench) time it in
    the first job's task phases and reuse it while a short check agrees; a check that does not
    agree times it again."""
    # A drift no CPU timing reaches, however loaded the machine: a µs call's median of two runs
    # can move tenfold here.
    # Exactly 5 timed runs: two CPU runs that agree within timing_precision would stop a series
    # at min_timed_runs (seen once in CI).
    options = {**ALONE, "reference_reuse_drift": 1e6, "timed_runs": 5, "min_timed_runs": 2,
               "timing_precision": 0.0, "timing_budget_ms": 0.0}
    first = cached_worker.evaluate(task("relu"), kernel("relu", "ok"), reference_key="relu-4",
                                   options=options)
    second = cached_worker.evaluate(task("relu"), kernel("relu", "ok"), reference_key="relu-4",
                                    options=options)
    assert first["reference_cache"] == "stored" and second["reference_cache"] == "hit"
    assert "reference.timing" in first["phases"] and "reference.timing" not in second["phases"]
    for facts in (first, second):
        check = facts["timing"]["reference_check"]
        assert check["runs"] == 2 and check["reused"] is True, check
        assert len(facts["timing"]["reference_ms"]) == 5
    assert first["timing"]["reference_ms"] == second["timing"]["reference_ms"]
    assert first["timing"]["reference_check"]["stored_median_ms"] == \
        second["timing"]["reference_check"]["stored_median_ms"]

    strict = {**options, "reference_reuse_drift": 1e-12}  # No CPU timing repeats that well.
    cached_worker.evaluate(task("relu"), kernel("relu", "ok"), reference_key="relu-5",
                           options=strict)
    drifted = cached_worker.evaluate(task("relu"), kernel("relu", "ok"), reference_key="relu-5",
                                     options=strict)
    check = drifted["timing"]["reference_check"]
    assert check["reused"] is False and check["drift"] > 1e-12, check
    assert len(drifted["timing"]["reference_ms"]) == 5  # Timed again, in full.


def test_without_reuse_or_interleaved_the_reference_is_timed_with_every_candidate(
        cached_worker: Worker) -> None:
    for options in ({**ALONE, "reference_reuse_drift": 0.0, "clean_reference_timing": False},
                    {"reference_reuse_drift": 0.5, "clean_reference_timing": False}):
        facts = cached_worker.evaluate(task("relu"), kernel("relu", "ok"),
                                       reference_key=f"relu-6-{len(options)}", options=options)
        assert "reference.timing" not in facts["phases"]
        assert "reference_check" not in facts["timing"]


def test_the_reference_is_timed_before_any_candidate_and_every_judge_reports_it(
        cached_worker: Worker) -> None:
    """Strict (clean_reference_timing): the first job of a task also times the reference in its
    task phases, before its candidate is imported, and seals that timing with the outputs; each
    job's judge reads it from the sealed file, a later job's too (which does not time it again),
    while the reference is still timed beside each candidate."""
    first = cached_worker.evaluate(task("relu"), kernel("relu", "ok"), reference_key="relu-7")
    second = cached_worker.evaluate(task("relu"), kernel("relu", "ok"), reference_key="relu-7")
    assert first["reference_cache"] == "stored" and second["reference_cache"] == "hit"
    assert "reference.timing" in first["phases"] and "reference.timing" not in second["phases"]
    clean = first["judge"]["reference_timing"]
    assert clean["reference_ms"] and all(ms > 0 for ms in clean["reference_ms"]), clean
    assert second["judge"]["reference_timing"] == clean
    for facts in (first, second):
        assert facts["timing"]["reference_ms"] and "reference_check" not in facts["timing"]

