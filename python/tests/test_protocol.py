"""The worker's side of the protocol schema, against the golden files the C++ side's tests check
too (tests/golden/protocol): the two declarations cannot drift apart."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import GOLDEN, Worker, kernel, task

from adaexplore_worker.protocol.decode import ProtocolError
from adaexplore_worker.protocol.facts import Status, check_facts
from adaexplore_worker.protocol.fields import schema_fields
from adaexplore_worker.protocol.job import Job, JobOptions


def golden(name: str) -> Any:
    return json.loads((GOLDEN / name).read_text())


def test_the_schema_is_the_one_both_sides_declare() -> None:
    assert schema_fields() == golden("fields.json")


@pytest.mark.parametrize("name", ["job_strict.json", "job_paper.json", "job_baseline.json"])
def test_the_golden_jobs_read_with_every_option(name: str) -> None:
    message = golden(name)
    job = Job.from_json(message)
    assert job.options.device == message["options"]["device"]
    assert job.options.init_seed == message["options"]["init_seed"]
    assert job.options.revalidate_atol == message["options"]["revalidate_atol"]
    assert job.task.filename == "relu.py"


def test_the_drifted_defaults_are_the_profiles_own() -> None:
    """The worker once had defaults of its own that disagreed with the C++ profile; what it reads
    now is what the profile sends."""
    strict = Job.from_json(golden("job_strict.json")).options
    assert strict.reference_precision == "fp64"
    assert strict.revalidate_atol == pytest.approx(2 * strict.atol)
    assert strict.distributions == ["task", "normal", "uniform_pm1", "scaled", "heavy"]
    paper = Job.from_json(golden("job_paper.json")).options
    assert paper.reference_precision == "task"
    assert paper.distributions == ["task"]
    assert paper.criterion == "allclose"


def _refused(message: dict[str, Any]) -> str:
    with pytest.raises(ProtocolError) as refused:
        Job.from_json(message)
    return str(refused.value)


def test_a_job_lacking_adding_or_mistyping_a_key_is_refused_by_name() -> None:
    job = golden("job_strict.json")
    lacking = copy.deepcopy(job)
    del lacking["options"]["init_seed"]
    assert "init_seed" in _refused(lacking)
    adding = copy.deepcopy(job)
    adding["options"]["turbo"] = True
    assert "turbo" in _refused(adding)
    mistyped = copy.deepcopy(job)
    mistyped["options"]["trials"] = "5"
    assert "options.trials" in _refused(mistyped)
    boolean_as_number = copy.deepcopy(job)
    boolean_as_number["options"]["trials"] = True
    assert "options.trials" in _refused(boolean_as_number)
    unknown_value = copy.deepcopy(job)
    unknown_value["options"]["precision"] = "fp8"
    assert "fp8" in _refused(unknown_value)
    no_source = copy.deepcopy(job)
    del no_source["candidate"]["source"]
    assert "job.candidate" in _refused(no_source)
    assert isinstance(JobOptions.from_json(job["options"]), JobOptions)


@pytest.mark.parametrize("path", sorted((GOLDEN / "facts").glob("*.json")), ids=lambda p: p.stem)
def test_golden_facts_are_declared_facts(path: Path) -> None:
    facts = json.loads(path.read_text())["facts"]
    check_facts(facts)
    Status(facts["status"])


def test_every_status_has_a_golden_file() -> None:
    statuses = {json.loads(p.read_text())["facts"]["status"]
                for p in (GOLDEN / "facts").glob("*.json")}
    assert statuses == {s.value for s in Status}


def test_undeclared_or_mistyped_facts_are_refused() -> None:
    for facts in ({"status": "fine"}, {"trials": []}, {"status": "ok", "speedup": 3.0},
                  {"status": "ok", "trials": "all passed"}, {"status": "ok", "wall_s": True}):
        with pytest.raises(ProtocolError):
            check_facts(facts)
    check_facts({"status": Status.CRASH, "exit_code": None, "signal": 11})


def test_the_worker_answers_a_job_it_cannot_read_with_a_harness_error(tmp_path: Path) -> None:
    w = Worker(tmp_path)
    try:
        job_id = w.submit(task("relu"), kernel("relu", "ok"), options={"turbo": True})
        facts = w.result(job_id)
        assert facts["status"] == "harness_error"
        assert facts["error"]["type"] == "ProtocolError"
        assert "turbo" in facts["error"]["message"]
        assert w.evaluate(task("relu"), kernel("relu", "ok"))["status"] == "ok"  # It goes on.
    finally:
        w.close()


def test_docs_describe_every_field() -> None:
    text = (GOLDEN.parents[2] / "docs" / "protocol.md").read_text()
    fields = schema_fields()
    missing = [name for group in ("options", "facts", "status") for name in fields[group]
               if f"`{name}`" not in text]
    assert not missing, f"docs/protocol.md does not describe {missing}"


def test_the_rules_findings_name_are_the_registrys() -> None:
    """Every rule the worker can name in a finding is in the C++ registry, and the reverse."""
    from adaexplore_worker.integrity import audit, integrity
    assert list(integrity.RULES) == golden("rules.json")
    assert set(audit._EVENTS.values()) <= set(integrity.RULES)
    assert {"torch_compile", "model_inheritance"} <= set(integrity.RULES)  # runtime_checks.py's own.


def test_any_string_a_candidate_makes_reaches_the_other_side_as_utf8() -> None:
    """A lone surrogate (from bytes decoded with surrogateescape, say) escaped as \\udc80 would
    be a line the C++ side must refuse; it is sent as "?" instead, the rest as it was."""
    import socket

    from adaexplore_worker.protocol.channel import Channel
    ours, theirs = socket.socketpair()
    try:
        Channel(ours.fileno()).send({"message": "bad \udc80 byte, caf\u00e9 \U0001f600",
                                     "\ud800key": 1})
        raw = theirs.recv(1 << 16)
        text = raw.decode("utf-8")  # Strict: it is UTF-8.
        assert "\\u" not in text
        assert json.loads(text) == {"message": "bad ? byte, caf\u00e9 \U0001f600", "?key": 1}
    finally:
        ours.close()
        theirs.close()


def test_an_exception_message_with_a_lone_surrogate_is_a_result_not_a_timeout(
        tmp_path: Path) -> None:
    path = tmp_path / "surrogate.py"
    path.write_text(Path(kernel("relu", "ok")).read_text() +
                    "\n\nraise RuntimeError(b'bad \\xff byte'.decode('utf-8', 'surrogateescape'))\n")
    w = Worker(tmp_path)
    try:
        job = w.submit(task("relu"), str(path), timeout_s=60)
        # The raw line, as the C++ side reads it: Python's own json would accept an escaped lone
        # surrogate (\udcff) that a strict UTF-8 JSON reader (nlohmann) refuses.
        w.sock.settimeout(50)
        buffer = b""
        while True:
            line, newline, rest = buffer.partition(b"\n")
            if newline:
                buffer = rest
                if b'"result"' in line and job.encode() in line:
                    break
                continue
            chunk = w.sock.recv(65536)
            assert chunk, "the worker closed the connection"
            buffer += chunk
        text = line.decode("utf-8")  # Strict: raises on any byte that is not UTF-8.
        assert "\\ud" not in text.lower(), text[:500]
        facts = json.loads(text)["facts"]
        assert facts["status"] == "import_error"
        assert "bad ? byte" in facts["error"]["message"]
    finally:
        w.close()


def test_nested_facts_of_another_shape_are_refused_by_name() -> None:
    """The nested facts the verdict reads are typed too (src/eval/facts.h): a trial, an output's
    values, the timing; keys they do not declare ride along."""
    facts = golden("facts/ok_incorrect.json")["facts"]
    for path, value in ((("trials", 0, "passed"), 1),
                        (("trials", 0, "outputs", 0, "values", "violations"), "many"),
                        (("null_kernels", "zeros"), "yes")):
        broken = copy.deepcopy(facts)
        target = broken
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        with pytest.raises(ProtocolError) as refused:
            check_facts(broken)
        assert str(path[-1]) in str(refused.value)
    extra = copy.deepcopy(facts)
    extra["trials"][0]["seed"] = "read by no verdict"
    extra["trials"][0]["outputs"][0]["values"]["max_abs_err"] = None  # NaN, sanitized.
    check_facts(extra)
