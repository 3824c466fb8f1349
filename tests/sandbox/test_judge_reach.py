"""Issue 53's routes from a candidate to the judge, against the real binary under `--profile
strict` with the sandbox on, as a hostile kernel author would take them: each attack is appended
to a correct relu kernel and runs at import. On the CPU in CI; on the GPU (`--sandbox-device
cuda`) the CUDA driver's threads, a CUDA host callback and the CUDA key are attacked as well
(bench/gpu/judge_reach.sh). python/tests/test_judge_reach.py holds the worker-level cases
(libgomp's pool, the channel found by `gc`, the output files replaced)."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import Cli, example

# torch.library on the device's own key: a slow relu for every caller, the reference included.
LIBRARY = """
import time as _time, torch as _torch
_lib = _torch.library.Library("aten", "IMPL")
def _slow_relu(x):
    _time.sleep(0.002)
    return _torch.clamp(x, min=0)
_lib.impl("relu", _slow_relu, "{key}")
"""

# Every thread of the process once CUDA runs (the driver's own), and a host callback: Python on
# the driver's callback thread, trying what a full-root thread could.
CUDA_THREADS = r"""
import ctypes as _c, json as _json, os as _o, torch as _torch
_torch.ones(1, device="cuda")
def _status(path):
    with open(path) as f:
        return {k: v.strip() for k, _, v in (l.partition(":") for l in f)
                if k in ("Name", "CapEff", "NoNewPrivs", "Seccomp")}
_found = {}
def _on_callback(_):
    state = _status("/proc/thread-self/status")
    try:
        _o.mknod(_o.path.join(_o.getcwd(), "blk"), 0o600 | 0o060000, _o.makedev(8, 0))
        state["mknod"] = "done"
    except OSError:
        state["mknod"] = "refused"
    _found["callback"] = state
_maps = open("/proc/self/maps").read()
_rt = sorted({l.split()[-1] for l in _maps.splitlines() if "libcudart" in l})
_fn = _c.CFUNCTYPE(None, _c.c_void_p)(_on_callback)
if _rt:
    _lib = _c.CDLL(_rt[0])
    _stream = _c.c_void_p(_torch.cuda.current_stream().cuda_stream)
    _found["launch"] = _lib.cudaLaunchHostFunc(_stream, _fn, None)
    _lib.cudaStreamSynchronize(_stream)
_found["threads"] = [_status(f"/proc/self/task/{t}/status") for t in _o.listdir("/proc/self/task")]
print("FOUND", _json.dumps(_found), flush=True)
"""

# The user's terminal, when adaexplore runs in one: typed input and fake verdict lines.
TERMINAL = """
import fcntl as _f, os as _o, termios as _t
try:
    _fd = _o.open("/dev/tty", _o.O_RDWR)
    print("ATTACK open /dev/tty done", flush=True)
except OSError as e:
    _fd = None
    print("ATTACK open /dev/tty refused", e.errno, flush=True)
for _n in sorted(int(x) for x in _o.listdir("/proc/self/fd")) + ([_fd] if _fd else []):
    try:
        for _ch in "echo adx-typed-by-the-kernel\\n":
            _f.ioctl(_n, _t.TIOCSTI, _ch.encode())
        print("ATTACK TIOCSTI", _n, "done", flush=True)
    except OSError as e:
        pass
"""

# The harness's session found by a `gc` walk: every trial claimed passed, in its own result with
# the job's nonce, sent before the harness could send one.
FORGE = r"""
import gc as _gc, os as _o
def _live(s):
    try:
        _o.fstat(s.channel.fd)
        return True
    except OSError:
        return False
_s = next(o for o in _gc.get_objects() if type(o).__name__ == "Session" and _live(o))
_trials = [{"index": i, "distribution": "task", "integrity": False, "passed": True,
            "problems": [], "inputs_mutated": [],
            "outputs": [{"form": {"problems": []}, "values": {"passed": True}}]} for i in range(2)]
_s.channel.send({"type": "result", "nonce": _s.nonce, "facts": {
    "status": "ok", "trials": _trials, "determinism": {"passed": True},
    "timing": {"candidate_ms": [0.001] * 20, "reference_ms": [1.0] * 20}}})
_o._exit(0)
"""

# The references in the candidate's own process: their tolerance scale made huge, so the check
# there passes any output.
REWRITE = r"""
import gc as _gc
for _o in _gc.get_objects():
    if type(_o).__name__ == "Context" and getattr(_o, "references", None):
        for _r in _o.references:
            _r["maxima"] = [1e30 for _ in _r["maxima"]]
"""

STRICT = ["--profile", "strict", "--timed-runs", "2", "--warmup", "0", "--trials", "2",
          "--timeout", "120", "--no-cache"]


def _cli(request: pytest.FixtureRequest, tmp: Path) -> tuple[Cli, str]:
    cli = Cli(request.config.getoption("--adaexplore-binary"), tmp)
    if request.config.getoption("--sandbox-python"):
        cli.env["ADAEXPLORE_PYTHON"] = request.config.getoption("--sandbox-python")
    return cli, request.config.getoption("--sandbox-device")


# The kernel writes its attack beside itself and imports it: the static rules never see it (not
# even in a string constant).
CARRIER = """
import os as _os, sys as _sys
with open(_os.path.join(_os.getcwd(), "payload_{stem}.py"), "w") as _f:
    _f.write(bytes.fromhex("{attack}").decode())
_sys.path.insert(0, _os.getcwd())
__import__("payload_{stem}")
"""


def _kernel(tmp: Path, name: str, attack: str, base: str = "ok.py") -> str:
    path = tmp / name
    path.write_text(Path(example("kernels", "relu", base)).read_text()
                    + CARRIER.format(stem=path.stem, attack=attack.encode().hex()))
    return str(path)


def _results(stdout: str) -> dict[str, dict[str, Any]]:
    return {Path(r["kernel"]).name: r for r in map(json.loads, filter(str.strip,
                                                                      stdout.splitlines()))}


def test_a_slow_kernel_registered_for_the_references_operator_is_rejected(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    cli, device = _cli(request, tmp_path)
    key = "CUDA" if device == "cuda" else "CPU"
    library = _kernel(tmp_path, "library.py", LIBRARY.format(key=key))
    honest = tmp_path / "honest.py"
    honest.write_text(Path(example("kernels", "relu", "ok.py")).read_text())
    p = cli.run("eval", "--device", device, "--json", *STRICT, "--task",
                example("tasks", "relu.py"), "--kernel", library, "--kernel", str(honest), timeout=600)
    results = _results(p.stdout)
    assert (results["library.py"]["verdict"], results["library.py"]["check"]) == (
        "rejected", "dispatcher_override"), results["library.py"]
    assert f"aten::relu: {key}: registered at" in results["library.py"]["reason"]
    assert results["honest.py"]["verdict"] == "correct", results["honest.py"]


# A TritonBench-G operator's own torch calls slowed: its test draws its inputs with torch.randn
# (aten::normal_), in the call the operator scope times, so its reference would be the slower.
SLOW_NORMAL = """
import time as _time, torch as _torch
_lib = _torch.library.Library("aten", "IMPL")
_normal = _torch.ops.aten.normal_.default
def _slow_normal(self, mean=0.0, std=1.0, *, generator=None):
    _time.sleep(0.002)
    with _torch._C._ExcludeDispatchKeyGuard(_torch._C.DispatchKeySet("{key}")):
        return _normal(self, mean, std, generator=generator)
_lib.impl("normal_", _slow_normal, "{key}")
"""


def test_an_operators_own_torch_calls_slowed_are_rejected(request: pytest.FixtureRequest,
                                                          tmp_path: Path) -> None:
    cli, device = _cli(request, tmp_path)
    key = "CUDA" if device == "cuda" else "CPU"
    path = tmp_path / "scale_add_slow.py"
    path.write_text(Path(example("tritonbench", "scale_add_candidate.py")).read_text()
                    + CARRIER.format(stem=path.stem,
                                     attack=SLOW_NORMAL.format(key=key).encode().hex()))
    p = cli.run("eval", "--device", device, "--json", *STRICT, "--task",
                example("tritonbench", "scale_add.py"), "--kernel", str(path), timeout=600)
    result = _results(p.stdout)["scale_add_slow.py"]
    assert (result["verdict"], result["check"]) == ("rejected", "dispatcher_override"), result
    assert f"aten::normal_: {key}: registered at" in result["reason"], result["reason"]


def test_a_wrong_kernel_cannot_make_its_own_result_or_references(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """Before the judge (issue 53): both were `correct`, the forged one at 1000x."""
    cli, device = _cli(request, tmp_path)
    forge = _kernel(tmp_path, "forge.py", FORGE, base="wrong_values.py")
    rewrite = _kernel(tmp_path, "rewrite.py", REWRITE, base="wrong_values.py")
    p = cli.run("eval", "--device", device, "--json", *STRICT, "--task",
                example("tasks", "relu.py"), "--kernel", forge, "--kernel", rewrite, timeout=600)
    results = _results(p.stdout)
    assert (results["forge.py"]["verdict"], results["forge.py"]["check"]) == (
        "rejected", "forged_result"), results["forge.py"]
    assert "never reached the judge" in results["forge.py"]["reason"]
    assert results["rewrite.py"]["verdict"] == "incorrect", results["rewrite.py"]
    assert "elements outside tolerance" in results["rewrite.py"]["reason"]


def test_the_cuda_drivers_threads_and_its_host_callbacks_are_confined(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    cli, device = _cli(request, tmp_path)
    if device != "cuda":
        pytest.skip("the CUDA driver's threads need a GPU (--sandbox-device cuda)")
    attacker = _kernel(tmp_path, "cuda_threads.py", CUDA_THREADS)
    p = cli.run("eval", "--device", device, "--json", *STRICT, "--task",
                example("tasks", "relu.py"), "--kernel", attacker, timeout=600)
    result = _results(p.stdout)["cuda_threads.py"]
    line = next(l for l in result["stdout"].splitlines() if l.startswith("FOUND "))
    found = json.loads(line[len("FOUND "):])
    assert found.get("launch") == 0 and "callback" in found, found
    assert found["callback"]["mknod"] == "refused", found["callback"]
    assert len(found["threads"]) >= 3, found["threads"]  # The driver's threads among them.
    for state in found["threads"] + [found["callback"]]:
        assert (state["CapEff"], state["NoNewPrivs"], state["Seccomp"]) == (
            "0000000000000000", "1", "2"), state
    assert result["verdict"] == "correct", result


@pytest.mark.skipif(shutil.which("script") is None, reason="util-linux's script is not installed")
def test_a_kernel_cannot_type_into_the_users_terminal(request: pytest.FixtureRequest,
                                                      tmp_path: Path) -> None:
    """adaexplore run inside a terminal (`script` gives it a pty as its controlling terminal,
    and a shell reading it afterwards): the kernel opens /dev/tty and tries TIOCSTI on every
    descriptor it has."""
    cli, device = _cli(request, tmp_path)
    attacker = _kernel(tmp_path, "terminal.py", TERMINAL)
    out = tmp_path / "results.jsonl"
    command = " ".join(shlex.quote(a) for a in [
        cli.binary, "eval", "--device", device, "--json", *STRICT, "--task",
        example("tasks", "relu.py"), "--kernel", attacker]) + f" > {shlex.quote(str(out))}"
    # The shell after adaexplore reads what was typed: it would run the kernel's echo.
    p = subprocess.run(["script", "-qec", f"{command}; read -t 2 line; echo \"read: $line\"",
                        "/dev/null"], capture_output=True, text=True,
                       env={**cli.env, "SHELL": "/bin/bash"}, cwd=tmp_path, timeout=600)
    result = _results(out.read_text())["terminal.py"]
    attacks = [l for l in result["stdout"].splitlines() if l.startswith("ATTACK")]
    assert attacks and attacks[0].startswith("ATTACK open /dev/tty refused"), result
    assert not any("TIOCSTI" in a for a in attacks), attacks
    assert "adx-typed-by-the-kernel" not in p.stdout, p.stdout
    assert result["verdict"] == "correct", result
