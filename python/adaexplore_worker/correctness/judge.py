"""The judge: a candidate's outputs compared with the references in a process that never ran
candidate code.

The evaluation child runs the candidate, so whatever it reports can be the candidate's own
words: a `gc` walk finds the job's nonce and the channel, and a wrong kernel can send its own
result and exit. Its trial results are therefore a claim. The harness in the child also writes
what the candidate returned, trial by trial, into a memory file the zygote made for the job
(`Recorder`); once the child's whole tree has ended, the zygote forks a judge (`run`) that reads
those outputs and the job's sealed reference file (refcache.py: written and sealed before the
candidate was imported, so no process can have changed it since) and compares them with the same
code and tolerances as the child (check.compare). Its findings ride in `facts.judge`; the C++
side takes the values from there and refuses trials the judge never saw (eval/classify_judge.cc).
With clean_reference_timing the sealed file also holds the reference's runs timed before any
candidate was imported: the judge reports them (`reference_timing`), and the C++ side compares
the reference by them where it ran slower beside the candidate.

The candidate can write into the outputs file too: that is choosing its outputs, which is what
the judge judges. The file holds no pickle: a JSON header per trial (dtype, shape, byte count)
and the raw bytes, parsed with bounds, so the judge runs no code the candidate chose.
"""

from __future__ import annotations

import json
import os
import struct
import time
from dataclasses import dataclass
from typing import Any

from . import check, refcache

RERUN = -1  # The record of the determinism rerun (trial 0's inputs again; trials.py).
JUDGE_SECONDS = 60.0  # Beyond the job's own limit: comparing on the host, never on the GPU.
JUDGE_NICENESS = 10  # Below the evaluations beside it; its threads are the C++ side's setting.
HEADER = struct.Struct("<Q")
MAX_HEADER_BYTES = 1 << 20
DTYPES = ("float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
          "int64", "int32", "int16", "int8", "uint8", "bool", "complex64", "complex128")


def outputs_file(job_id: str) -> int:
    """The memory file a job's child records its candidate's outputs in (the zygote's)."""
    return os.memfd_create(f"adaexplore-outputs-{job_id}"[:240], os.MFD_CLOEXEC)


def used_bytes(fd: int) -> int:
    """The memory the file holds (pages written, not its apparent size)."""
    try:
        return os.fstat(fd).st_blocks * 512
    except OSError:
        return 0


# -- the child's side ----------------------------------------------------------------------------

class Recorder:
    """Appends each trial's outputs to the job's outputs file, in the harness's own order."""

    def __init__(self, fd: int) -> None:
        self.fd, self.position = fd, 0

    def record(self, trial: int, outputs: list[Any]) -> None:
        import torch
        entries: list[dict[str, Any]] = []
        blobs: list[Any] = []
        for out in outputs:
            if not isinstance(out, torch.Tensor):
                entries.append({"kind": "other", "type": type(out).__qualname__[:100]})
                continue
            host = out.detach().to("cpu").contiguous()
            raw = host.reshape(-1).view(torch.uint8).numpy() if host.numel() else b""
            entries.append({"kind": "tensor", "dtype": str(host.dtype).replace("torch.", ""),
                            "shape": list(host.shape), "bytes": len(memoryview(raw).cast("B"))})
            blobs.append(raw)
        header = json.dumps({"trial": trial, "outputs": entries}).encode()
        self._write(HEADER.pack(len(header)) + header)
        for raw in blobs:
            self._write(raw)

    def _write(self, data: Any) -> None:
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            done += os.pwrite(self.fd, view[done:], self.position + done)
        self.position += done


# -- the judge's side ----------------------------------------------------------------------------

def read_records(fd: int) -> tuple[list[dict[str, Any]], str]:
    """The records of an outputs file, each {"trial", "outputs": [tensor or None]}, and what
    ended the reading early ("" when the file ended on a record's end)."""
    import torch
    size = os.fstat(fd).st_size
    records: list[dict[str, Any]] = []
    offset = 0
    while offset < size:
        if offset + HEADER.size > size:
            return records, "a truncated record"
        (length,) = HEADER.unpack(os.pread(fd, HEADER.size, offset))
        offset += HEADER.size
        if length > MAX_HEADER_BYTES or offset + length > size:
            return records, "a record header out of bounds"
        try:
            header = json.loads(os.pread(fd, length, offset))
            entries = header["outputs"]
            trial = int(header["trial"])
        except (ValueError, KeyError, TypeError):
            return records, "a record header that is not the harness's"
        offset += length
        outputs: list[Any] = []
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict) or entry.get("kind") != "tensor":
                outputs.append(None)
                continue
            dtype, shape, count = entry.get("dtype"), entry.get("shape"), entry.get("bytes")
            if (dtype not in DTYPES or not isinstance(shape, list) or not isinstance(count, int)
                    or not all(isinstance(n, int) and n >= 0 for n in shape)
                    or count < 0 or offset + count > size):
                return records, "a tensor record out of bounds"
            kind = getattr(torch, dtype)
            numel = 1
            for n in shape:
                numel *= n
            if numel * torch.empty(0, dtype=kind).element_size() != count:
                return records, "a tensor record whose size is not its shape's"
            raw = bytearray(count)
            if count and os.preadv(fd, [raw], offset) != count:
                return records, "a truncated tensor"
            offset += count
            flat = torch.frombuffer(raw, dtype=torch.uint8) if count else torch.empty(
                0, dtype=torch.uint8)
            outputs.append(flat.view(kind).reshape(shape))
        records.append({"trial": trial, "outputs": outputs})
    return records, ""


def judge(references_fd: int, outputs_fd: int, criterion: str, atol: float,
          rtol: float) -> dict[str, Any]:
    """facts.judge: each recorded trial's outputs against the sealed references."""
    started = time.monotonic()
    if not refcache.is_sealed(references_fd):  # Never stored (larger than the cache's bound).
        return {"references": "unsealed", "trials": []}
    payload, _ = refcache.read(refcache.Plan(key="", read_fd=references_fd, store_fd=None,
                                             max_bytes=0))
    if payload is None:
        return {"references": "unreadable", "trials": []}
    references = payload["references"]
    records, stopped = read_records(outputs_fd)
    judged: list[dict[str, Any]] = []
    seen: set[int] = set()
    first: list[Any] | None = None  # Trial 0's outputs, which the rerun must repeat.
    rerun: list[Any] | None = None
    for record in records:
        index = record["trial"]
        if index == RERUN and rerun is None and first is not None:
            rerun = record["outputs"]
            continue
        if index in seen or not 0 <= index < len(references):
            stopped = stopped or f"a record of trial {index}, {'again' if index in seen else 'unknown'}"
            break
        seen.add(index)
        first = record["outputs"] if index == 0 else first
        judged.append(_judge_trial(index, record["outputs"], references[index], criterion,
                                   atol, rtol))
    facts: dict[str, Any] = {"references": "sealed", "trials": judged,
                             "wall_s": round(time.monotonic() - started, 4)}
    clean = payload.get("reference_timing")
    if isinstance(clean, dict) and clean.get("reference_ms"):
        facts["reference_timing"] = {k: clean[k] for k in ("reference_ms", "reference_gpu_ms",
                                                            "reference_operator_gpu_ms")
                                     if isinstance(clean.get(k), list)}
    if rerun is not None and first is not None:
        facts["determinism"] = _determinism(first, rerun, references[0], atol, rtol)
    if stopped:
        facts["stopped"] = stopped
    return facts


def _determinism(first: list[Any], again: list[Any], reference: dict[str, Any], atol: float,
                 rtol: float) -> dict[str, Any]:
    """The rerun of trial 0 against its first run, as the child compares them, at the scale of
    the sealed reference."""
    scale = max((m for m in reference["maxima"] if m is not None), default=0.0)
    found = check.rerun_agreement(first, again, scale, atol, rtol)
    return {key: found[key] for key in ("passed", "special_mismatch", "max_abs_diff")}


def _judge_trial(index: int, outputs: list[Any], reference: dict[str, Any], criterion: str,
                 atol: float, rtol: float) -> dict[str, Any]:
    import torch
    expected = reference["expected"]  # [(shape, dtype)]
    trial: dict[str, Any] = {"index": index, "problems": [], "outputs": []}
    if len(outputs) != len(expected):
        trial["problems"].append(f"the candidate returned {len(outputs)} outputs, the "
                                 f"reference {len(expected)}")
    for got, (shape, dtype), stored, ref_max in zip(outputs, expected, reference["outputs"],
                                                    reference["maxima"]):
        if got is None:
            trial["problems"].append("an output is not a tensor")
            trial["outputs"].append({"passed": False})
            continue
        if list(got.shape) != list(shape) or got.dtype != getattr(torch, dtype):
            trial["problems"].append(
                f"output {list(got.shape)} {str(got.dtype).replace('torch.', '')} != reference "
                f"{list(shape)} {dtype}")
            trial["outputs"].append({"passed": False})
            continue
        trial["outputs"].append(check.compare(got, stored, criterion, atol, rtol, ref_max))
    trial["passed"] = not trial["problems"] and all(o.get("passed") for o in trial["outputs"])
    return trial


def run(references_fd: int, outputs_fd: int, criterion: str, atol: float, rtol: float,
        write_fd: int, threads: int) -> None:
    """The judge process's body (forked by the zygote; exits with os._exit): its facts as one
    JSON document on `write_fd`."""
    code = 0
    try:
        # Beside the next candidates' evaluations: their host work comes first (on an H100,
        # a judge on every core slowed the next candidate's check and reference phases).
        os.nice(JUDGE_NICENESS)
        unconfined = confine()  # Before its threads start: each inherits what it took.
        import torch
        torch.set_num_threads(max(1, min(threads, os.cpu_count() or 1)))
        try:
            facts = judge(references_fd, outputs_fd, criterion, atol, rtol)
        except Exception as e:  # noqa: BLE001 - the harness's failure, said as such.
            facts = {"references": "sealed", "trials": [],
                     "error": f"{type(e).__name__}: {e}"[:500]}
        if unconfined:
            facts["unconfined"] = unconfined
        from ..protocol.channel import sanitize
        data = json.dumps(sanitize(facts)).encode()
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view):]
    except BaseException:  # noqa: BLE001
        code = 70
    finally:
        os._exit(code)


def confine() -> list[str]:
    """The judge runs no candidate code but reads what a candidate wrote, so it keeps no more
    than reading needs: no capabilities, no way to gain one, no writes to any file (Landlock),
    the candidates' system-call filter. What it could not take, each with its reason."""
    from ..sandbox import privileges, syscall_filter
    steps = (("no_capabilities", lambda: privileges.effective_capabilities() == 0
              or privileges.drop_capabilities()),
             ("no_new_privs", privileges.set_no_new_privs),
             ("seccomp", syscall_filter.install),  # Before Landlock: it writes a file in /tmp.
             ("landlock", lambda: privileges.restrict_writes([])))
    missing = []
    for name, step in steps:
        try:
            step()
        except Exception as e:  # noqa: BLE001 - said in facts.judge.unconfined, not fatal.
            missing.append(f"{name}: {type(e).__name__}: {e}"[:200])
    return missing


# -- the zygote's side ---------------------------------------------------------------------------

@dataclass
class Pending:
    """A judge at work: the ended child's facts wait for its findings."""
    job_id: str
    facts: dict[str, Any]
    pid: int
    deadline: float
    data: bytes = b""


def facts_of(data: bytes, failure: str | None) -> dict[str, Any]:
    """facts.judge from what the judge wrote (checked against the schema), or its failure."""
    from ..protocol.decode import ProtocolError
    from ..protocol.facts import Status, check_facts
    if failure is None:
        try:
            facts = json.loads(data)
            check_facts({"status": Status.OK, "judge": facts})
            return facts
        except (ValueError, ProtocolError) as e:
            failure = f"the judge's findings are not the schema's: {e}"[:500]
    return {"references": "sealed", "trials": [], "error": failure}
