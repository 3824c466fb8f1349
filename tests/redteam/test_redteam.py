"""Runs the red-team cases (see README.md): every exploit must come back rejected or incorrect
with the expected reason, every legitimate kernel correct."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))


def parse_case(path: Path) -> dict[str, str]:
    text = path.read_text()
    if not text.startswith('"""'):
        raise ValueError(f"{path}: no docstring header")
    header = text[3:text.index('"""', 3)]
    meta = {}
    for line in header.splitlines():
        if ":" in line and line.split(":", 1)[0].strip() in (
                "task", "expect", "reason", "class", "device", "degenerate", "flags", "paper"):
            key, value = line.split(":", 1)
            meta[key.strip()] = value.strip()
    for key in ("task", "expect", "class"):
        if key not in meta:
            raise ValueError(f"{path}: header lacks '{key}'")
    meta.setdefault("device", "any")
    meta.setdefault("flags", "")
    meta["path"] = str(path)
    return meta


CASES = [parse_case(p) for p in sorted((HERE / "cases").glob("*.py"))]


def task_path(name: str) -> Path:
    for folder in (HERE / "tasks", ROOT / "examples" / "tasks"):
        if (folder / f"{name}.py").exists():
            return folder / f"{name}.py"
    raise FileNotFoundError(name)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        metafunc.parametrize("case", CASES, ids=[Path(c["path"]).stem for c in CASES])


@pytest.fixture(scope="session")
def cpu_results(request: pytest.FixtureRequest, tmp_path_factory) -> dict[str, dict]:
    """Evaluates every case that runs on this device once: one `adaexplore eval` in the batch
    form (one worker pool, exploits and legitimate kernels side by side) per set of extra flags
    the cases ask for; results by the case's path."""
    binary = str(Path(request.config.getoption("--adaexplore-binary")).resolve())
    device = request.config.getoption("--redteam-device")
    slots = request.config.getoption("--redteam-slots")
    tmp = tmp_path_factory.mktemp("redteam")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp / "cache"),
               ADAEXPLORE_PYTHON=request.config.getoption("--redteam-python"))
    groups: dict[str, list[dict[str, str]]] = {}
    for case in CASES:
        if case["device"] == "any" or device == "cuda":
            groups.setdefault(case["flags"], []).append(case)
    results: dict[str, dict] = {}
    for n, (flags, cases) in enumerate(sorted(groups.items())):
        group = tmp / f"group{n}"
        tasks, kernels = group / "tasks", group / "kernels"
        tasks.mkdir(parents=True)
        origin: dict[str, str] = {}  # Copied kernel path -> case path.
        for case in cases:
            task = task_path(case["task"])
            shutil.copy(task, tasks / task.name)
            folder = kernels / task.stem
            folder.mkdir(parents=True, exist_ok=True)
            copy = folder / Path(case["path"]).name
            shutil.copy(case["path"], copy)
            origin[str(copy)] = case["path"]
        # No case expects a timeout: the limit only has to outlast a slow legitimate kernel in
        # the interpreter on a busy 2-core machine (a direct conv2d took over 120 s there).
        profile = request.config.getoption("--redteam-profile")
        args = [binary, "eval", "--device", device, "--profile", profile, "--json", "--no-cache",
                "--timed-runs", "5",
                "--warmup", "1", "--timeout", "300", "--tasks-dir", str(tasks),
                "--kernels-dir", str(kernels)] + flags.split()
        if slots > 0:
            args += ["--slots", str(slots)]
        # Results stream into a file, so a run cut short still leaves the verdicts it reached.
        results_path = group / "results.jsonl"
        with open(results_path, "w") as sink:
            out = subprocess.run(args, stdout=sink, stderr=subprocess.PIPE, text=True, env=env,
                                 cwd=group, timeout=3600)
        for line in results_path.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                results[origin.get(r["kernel"], r["kernel"])] = r
        missing = [p for p in origin.values() if p not in results]
        assert not missing, (f"no result for {len(missing)} case(s), {missing[:3]}...: "
                             f"{out.stderr[-3000:]}")
    return results


def test_case(case: dict[str, str], cpu_results: dict[str, dict],
              request: pytest.FixtureRequest) -> None:
    if case["device"] != "any" and request.config.getoption("--redteam-device") != "cuda":
        pytest.skip("needs a GPU: run bench/gpu/redteam.sh on the GPU machine")
    r = cpu_results[case["path"]]
    expect, reason = case["expect"], case.get("reason")
    if request.config.getoption("--redteam-profile") == "paper" and case.get("paper"):
        # "paper: <verdict>[, <phrase of its reason>]": the release's tolerance decides it.
        expect, _, reason = (part.strip() for part in case["paper"].partition(","))
    assert r["verdict"] == expect, (r["verdict"], r["reason"], r["error"][-1500:])
    if reason and expect == "correct":
        # What a correct verdict must still report: a finding.
        assert any(reason in f for f in r["findings"]), r["findings"]
    elif reason:
        assert reason in r["reason"], r["reason"]
    if case.get("degenerate") == "yes":
        assert r["degenerate"], "the task should have been flagged degenerate"
    elif case["expect"] == "correct" and request.config.getoption("--redteam-profile") == "strict":
        # Under paper (task inputs only, 5e-2) more tasks let a trivial output pass: flagged, and
        # true there.
        assert not r["degenerate"], f"unexpectedly degenerate: {r['degenerate']}"


def test_catalogue_coverage() -> None:
    """The suite covers every class of the catalogue, with enough cases on each side."""
    exploits = [c for c in CASES if c["class"] != "legit"]
    legit = [c for c in CASES if c["class"] == "legit"]
    classes = {int(c["class"]) for c in exploits}
    assert classes == set(range(1, 17)), f"classes without a case: {set(range(1, 17)) - classes}"
    assert len(exploits) >= 24, len(exploits)
    assert len(legit) >= 24, len(legit)
    # An exploit fails one way or another (c06_handler_raises: its fallback raises).
    assert all(c["expect"] in ("rejected", "incorrect", "runtime_error") for c in exploits
               if c.get("degenerate") != "yes"), "an exploit expected to score"
    assert all(c["expect"] == "correct" for c in legit)
