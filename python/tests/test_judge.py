"""The judge (judge.py): the candidate's outputs compared with the sealed references in a process
that never ran candidate code. The record format alone, then a real worker attacked the way a
hostile kernel would: its own result message, and the references in its own memory rewritten."""

from __future__ import annotations

import fcntl
import json
import os
import struct
from pathlib import Path

import pytest
import torch

from conftest import Worker, kernel, task
from adaexplore_worker.correctness import judge, refcache
from adaexplore_worker.protocol.facts import Status
from test_judge_reach import CARRIER


def _memfd() -> int:
    return os.memfd_create("test", os.MFD_ALLOW_SEALING)


def _references(outputs: list[torch.Tensor]) -> int:
    """A sealed reference file with one trial of `outputs`, as refcache.store writes it."""
    fd = _memfd()
    payload = {"references": [{"outputs": outputs,
                               "maxima": [float(t.abs().max()) for t in outputs],
                               "expected": [(list(t.shape), str(t.dtype).replace("torch.", ""))
                                            for t in outputs]}]}
    file = refcache._FdFile(fd)
    refcache.encode(payload, file)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, refcache.SEALS)
    return fd


def test_records_round_trip_every_dtype_and_shape() -> None:
    fd = _memfd()
    recorder = judge.Recorder(fd)
    sent = [torch.randn(3, 4), torch.randn(5).to(torch.bfloat16), torch.tensor(7),
            torch.zeros(0, 2), torch.arange(6).reshape(2, 3).t(), torch.tensor([True, False])]
    recorder.record(0, [*sent, "not a tensor"])
    recorder.record(1, sent[:1])
    records, stopped = judge.read_records(fd)
    assert stopped == ""
    assert [r["trial"] for r in records] == [0, 1]
    got = records[0]["outputs"]
    assert got[-1] is None
    for a, b in zip(sent, got):
        assert b.dtype == a.dtype and b.shape == a.shape and torch.equal(a, b)


@pytest.mark.parametrize("garbage", [
    struct.pack("<Q", 1 << 40),  # A header longer than the file.
    struct.pack("<Q", 7) + b"{nope}!",  # Not JSON.
    (lambda h: struct.pack("<Q", len(h)) + h)(json.dumps(
        {"trial": 0, "outputs": [{"kind": "tensor", "dtype": "float32", "shape": [1 << 40],
                                  "bytes": 4}]}).encode()),  # A shape its bytes are not.
    (lambda h: struct.pack("<Q", len(h)) + h)(json.dumps(
        {"trial": 0, "outputs": [{"kind": "tensor", "dtype": "object", "shape": [1],
                                  "bytes": 8}]}).encode() + bytes(8)),  # No such dtype.
])
def test_a_file_not_written_by_the_harness_stops_the_reading(garbage: bytes) -> None:
    fd = _memfd()
    judge.Recorder(fd).record(0, [torch.ones(2)])
    os.pwrite(fd, garbage, os.fstat(fd).st_size)
    records, stopped = judge.read_records(fd)
    assert len(records) == 1 and stopped


def test_the_judge_compares_with_the_sealed_references_only() -> None:
    expected = torch.randn(64)
    references = _references([expected])
    good, bad, unsealed = _memfd(), _memfd(), _memfd()
    judge.Recorder(good).record(0, [expected.clone()])
    judge.Recorder(bad).record(0, [expected * 2])
    assert judge.judge(references, good, "scaled", 1e-4, 1e-4)["trials"][0]["passed"]
    found = judge.judge(references, bad, "scaled", 1e-4, 1e-4)
    assert found["references"] == "sealed"
    assert not found["trials"][0]["passed"] and found["trials"][0]["outputs"][0]["violations"] > 0
    assert judge.judge(unsealed, good, "scaled", 1e-4, 1e-4) == {"references": "unsealed",
                                                                 "trials": []}
    twice = _memfd()
    judge.Recorder(twice).record(0, [expected])
    os.pwrite(twice, Path(f"/proc/self/fd/{good}").read_bytes(), os.fstat(twice).st_size)
    found = judge.judge(references, twice, "scaled", 1e-4, 1e-4)
    assert len(found["trials"]) == 1 and "again" in found["stopped"]


def test_the_judge_compares_the_determinism_rerun_with_trial_0() -> None:
    """The child's rerun of trial 0 (judge.RERUN) against trial 0's own outputs: identical, or
    within the tolerance at the reference's scale, and no NaN/Inf disagreement."""
    expected = torch.randn(64)
    references = _references([expected])
    nan = expected.clone()
    nan[3] = float("nan")
    for again, passed in ((expected.clone(), True), (expected + 1e-5, True),
                          (expected + 1e-2, False), (nan, False)):
        fd = _memfd()
        recorder = judge.Recorder(fd)
        recorder.record(0, [expected.clone()])
        recorder.record(judge.RERUN, [again])
        found = judge.judge(references, fd, "scaled", 1e-4, 1e-4)
        assert found["determinism"]["passed"] is passed, (again[:4], found["determinism"])
        assert found["determinism"]["special_mismatch"] is (again is nan)
    early = _memfd()  # A rerun before any trial: not the harness's order.
    judge.Recorder(early).record(judge.RERUN, [expected])
    found = judge.judge(references, early, "scaled", 1e-4, 1e-4)
    assert "determinism" not in found and "-1" in found["stopped"]


# Written as the candidate's author would: the nonce and the channel from a `gc` walk, the
# harness's facts copied and every trial marked passed, then its own result, and out.
FORGE_PAYLOAD = r'''
import gc, os
def _open(o):
    try:
        os.fstat(o.channel.fd)
        return True
    except OSError:
        return False
session = next(o for o in gc.get_objects() if type(o).__name__ == "Session" and _open(o))
trials = [{"index": i, "distribution": "task", "integrity": False, "passed": True,
           "problems": [], "inputs_mutated": [],
           "outputs": [{"form": {"problems": []}, "values": {"passed": True, "violations": 0,
                                                             "numel": 16000}}]}
          for i in range(3)]
facts = {"status": "ok", "trials": trials, "determinism_passed": True,
         "judge": {"references": "sealed", "trials": [{"index": i, "passed": True,
                                                       "problems": [], "outputs": []}
                                                      for i in range(3)]}}
session.channel.send({"type": "result", "nonce": session.nonce, "facts": facts})
os._exit(0)
'''

# The references live in the candidate's process: their tolerance scale rewritten, the check
# there passes anything.
REWRITE_PAYLOAD = r'''
import gc
for o in gc.get_objects():
    if type(o).__name__ == "Context" and getattr(o, "references", None):
        for ref in o.references:
            ref["maxima"] = [1e30 for _ in ref["maxima"]]
'''


def _hostile_wrong(tmp_path: Path, name: str, payload: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(Path(kernel("relu", "wrong_values")).read_text()
                    + CARRIER.format(name=name, payload=payload))
    return str(path)


@pytest.mark.parametrize("cache_mb", [0, 64])
def test_a_forged_result_never_reaches_the_judge(tmp_path: Path, cache_mb: float) -> None:
    """Before the judge: status ok, every trial passed, the zygote sent it on (`correct`)."""
    (tmp_path / "w").mkdir()
    w = Worker(tmp_path / "w", reference_cache_mb=cache_mb)
    try:
        kernel_path = _hostile_wrong(tmp_path, "forge", FORGE_PAYLOAD)
        facts = w.evaluate(task("relu"), kernel_path, timeout_s=60,
                           reference_key="relu-key" if cache_mb else "")
        assert facts["status"] == Status.OK and all(t["passed"] for t in facts["trials"])
        assert facts["judge"]["references"] == "sealed", facts["judge"]
        assert facts["judge"]["trials"] == []  # Its own judge block is not the one sent on.
    finally:
        w.close()


def test_references_rewritten_in_the_candidates_memory_do_not_fool_the_judge(
        worker: Worker, tmp_path: Path) -> None:
    facts = worker.evaluate(task("relu"), _hostile_wrong(tmp_path, "rewrite", REWRITE_PAYLOAD),
                            timeout_s=60)
    assert facts["status"] == Status.OK
    assert all(t["passed"] for t in facts["trials"]), "the in-process check was not fooled"
    judged = facts["judge"]["trials"]
    assert len(judged) == len(facts["trials"])
    assert not any(t["passed"] for t in judged)
    assert judged[0]["outputs"][0]["violations"] > 1000


# As FORGE_PAYLOAD, but its facts break the schema: before, the zygote took that for the
# harness's own bug (an `error` verdict, which stops a search).
BROKEN_FORGE_PAYLOAD = FORGE_PAYLOAD.replace('"determinism_passed": True,',
                                             '"determinism_passed": "yes", "bonus": 1,')


def test_a_forged_result_that_breaks_the_schema_is_the_candidates(worker: Worker,
                                                                  tmp_path: Path) -> None:
    facts = worker.evaluate(task("relu"),
                            _hostile_wrong(tmp_path, "broken", BROKEN_FORGE_PAYLOAD),
                            timeout_s=60)
    assert facts["status"] == Status.PROTOCOL_VIOLATION, facts
    assert "after the harness's own check passed it" in facts["message"]
    assert "bonus" in facts["message"] or "determinism_passed" in facts["message"]


# The judge's body after the zygote's fork, in a process of its own (a fork of this pytest
# process would inherit a started OpenMP pool, which libgomp cannot use after fork: it hangs).
CONFINED_JUDGE = r"""
import json, os, sys
import torch  # Imported as in the zygote, whose forks start with one thread, as here.
from adaexplore_worker.correctness import judge
from adaexplore_worker.sandbox import privileges
read, write = os.pipe()
pid = os.fork()
if pid == 0:
    missing = judge.confine()
    torch.set_num_threads(2)
    torch.randn(1 << 22).relu_().sum()  # The intra-op pool starts after confine.
    states = privileges.thread_states(os.getpid())
    try:
        with open(sys.argv[1], "w") as f:
            f.write("x")
        wrote = True
    except OSError:
        wrote = False
    os.write(write, json.dumps({"missing": missing, "states": states, "wrote": wrote}).encode())
    os._exit(0)
os.close(write)
with os.fdopen(read) as f:
    print(f.read())
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
"""


def test_the_judge_takes_every_protection_before_its_threads_start(tmp_path: Path) -> None:
    """judge.confine, then torch's pool runs: every thread of it holds no capability,
    no_new_privs and the filter; no file can be written."""
    import subprocess
    import sys
    probe = tmp_path / "written_by_the_judge"
    done = subprocess.run([sys.executable, "-c", CONFINED_JUDGE, str(probe)],
                          capture_output=True, text=True, timeout=120,
                          cwd=str(Path(judge.__file__).parents[2]))
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    from adaexplore_worker.sandbox import privileges
    try:
        import pyseccomp  # noqa: F401
        has_filter = True
    except (ImportError, OSError):
        has_filter = False
    if privileges.landlock_abi() < 1 or not has_filter:
        assert seen["missing"], "a protection this kernel lacks went unsaid"
        pytest.skip(f"this kernel or venv lacks a protection: {seen['missing']}")
    assert seen["missing"] == []
    assert seen["states"]["threads"] >= 2 and seen["states"]["unconfined"] == []
    assert seen["wrote"] is False and not probe.exists()


def test_the_workers_judge_ran_confined(worker: Worker) -> None:
    facts = worker.evaluate(task("relu"), kernel("relu", "ok"), timeout_s=60)
    assert facts["judge"]["trials"], facts["judge"]
    from adaexplore_worker.sandbox import privileges
    try:
        import pyseccomp  # noqa: F401
        complete = privileges.landlock_abi() >= 1
    except (ImportError, OSError):
        complete = False
    if complete:
        assert "unconfined" not in facts["judge"], facts["judge"]["unconfined"]
    else:  # What it could not take is said with the result.
        assert facts["judge"]["unconfined"], facts["judge"]
