"""A hostile candidate against the worker's judge, written as its author would: the payload sits
in a module the kernel writes into its folder and imports (the static rules never see it), and
reaches the harness through `gc`, `ctypes` and the threads of its own process. Real zygote,
real sandbox, on the CPU (Triton's interpreter)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from conftest import Worker, kernel, task
from adaexplore_worker.process import process_tree
from adaexplore_worker.protocol.facts import Status

# The kernel writes the payload beside itself and imports it: nothing of it is in the source
# the static checks read.
CARRIER = '''
import os as _os, sys as _sys
_open = open
with _open(_os.path.join(_os.getcwd(), "payload_{name}.py"), "w") as _f:
    _f.write({payload!r})
_sys.path.insert(0, _os.getcwd())
__import__("payload_{name}")
'''

# The task's phases start torch's CPU pool before the candidate is imported: a relu over 4M
# elements runs on every intra-op thread.
POOL_TASK = '''
import torch
import torch.nn as nn

torch.set_num_threads(2)
_warm = torch.randn(1 << 22).relu_().sum()  # At load: the pool exists before any candidate.


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(16, 1000)]


def get_init_inputs():
    return []
'''

# Runs on each thread of torch's OpenMP pool through libgomp's own entry point, the route the
# last attack round took to a full-root thread: what the thread holds, and what it may do.
GOMP_PAYLOAD = r'''
import ctypes, os, json
found = []
def on_thread(_):
    status = {}
    with open("/proc/thread-self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("CapEff", "NoNewPrivs", "Seccomp"):
                status[key] = value.strip()
    tries = {}
    for name, act in (("mknod", lambda: os.mknod(os.path.join(os.getcwd(), "blk%d" % os.getpid()),
                                                  0o600 | 0o060000, os.makedev(8, 0))),
                      ("mount", lambda: ctypes.CDLL(None, use_errno=True).mount(
                          b"tmpfs", os.getcwd().encode(), b"tmpfs", 0, None) == 0 or
                          (_ for _ in ()).throw(OSError(ctypes.get_errno(), "mount")))):
        try:
            act()
            tries[name] = "done"
        except OSError as e:
            tries[name] = "refused"
    found.append({"tid": ctypes.CDLL(None).syscall(186), **status, **tries})
maps = open("/proc/self/maps").read()
gomp = sorted({line.split()[-1] for line in maps.splitlines() if "libgomp" in line})
FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
callback = FN(on_thread)
if gomp:
    ctypes.CDLL(gomp[0]).GOMP_parallel(callback, None, 2, 0)
threads = []
for tid in os.listdir("/proc/self/task"):
    with open(f"/proc/self/task/{tid}/status") as f:
        threads.append({k: v.strip() for k, _, v in (l.partition(":") for l in f)
                        if k in ("Name", "CapEff", "NoNewPrivs", "Seccomp")})
print("FOUND", json.dumps({"gomp": gomp, "pool": found, "threads": threads}), flush=True)
'''

# Finds the harness's channel to the zygote in its own heap and talks to it.
CHANNEL = r'''
import gc, os, time
def _open(o):
    try:
        os.fstat(o.fd)
        return True
    except OSError:
        return False
# The zygote's own channel object came along with the fork, its descriptor closed: the live one.
channel = next(o for o in gc.get_objects() if type(o).__name__ == "Channel" and _open(o))
'''
REWIND_PAYLOAD = CHANNEL + r'''
for _ in range(60):  # Every half second, back to the task's phases: a fresh limit each time.
    channel.send({"type": "phase", "phase": "reference"})
    channel.send({"type": "phase", "phase": "import"})
    time.sleep(0.5)
'''
SELF_WAIT_PAYLOAD = CHANNEL + r'''
channel.send({"type": "acquire", "mode": "shared"})
channel.send({"type": "acquire", "mode": "exclusive"})  # Waits on itself; credited for ever?
time.sleep(60)
'''


def _hostile(tmp_path: Path, name: str, payload: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(Path(kernel("relu", "ok")).read_text()
                    + CARRIER.format(name=name, payload=payload))
    return str(path)


def _found(facts: dict) -> dict:
    line = next(l for l in facts["stdout"].splitlines() if l.startswith("FOUND "))
    return json.loads(line[len("FOUND "):])


def test_every_thread_is_confined_even_those_the_tasks_phases_started(worker: Worker,
                                                                       tmp_path: Path) -> None:
    pool_task = tmp_path / "pool_task.py"
    pool_task.write_text(POOL_TASK)
    facts = worker.evaluate(str(pool_task), _hostile(tmp_path, "gomp", GOMP_PAYLOAD),
                            options={"measure": False})
    found = _found(facts)
    assert found["gomp"], "torch's libgomp is loaded"
    assert len(found["pool"]) == 2 and len(found["threads"]) >= 2, found
    for state in found["pool"] + found["threads"]:
        assert (state["CapEff"], state["NoNewPrivs"], state["Seccomp"]) == (
            "0000000000000000", "1", "2"), state
    assert all(t["mknod"] == t["mount"] == "refused" for t in found["pool"]), found["pool"]
    # The zygote read every thread from outside as well, and found none unconfined.
    assert facts["threads_checked"]["unconfined"] == []
    assert facts["threads_checked"]["sweeps"] >= 1
    assert facts["status"] == "ok"


def test_phases_only_move_forward_so_the_limit_is_never_renewed(worker: Worker,
                                                                tmp_path: Path) -> None:
    began = time.monotonic()
    facts = worker.evaluate(task("relu"), _hostile(tmp_path, "rewind", REWIND_PAYLOAD),
                            timeout_s=6, options={"measure": False})
    assert facts["status"] == "timeout", facts.get("status")
    assert facts["wall_s"] - facts["waited_s"] < 12, facts  # 6 s, not the 30 s it asked for.
    assert time.monotonic() - began < 25
    assert facts["stray_lines"] >= 2


def test_a_second_lock_request_is_not_a_wait_on_itself(worker: Worker, tmp_path: Path) -> None:
    began = time.monotonic()
    facts = worker.evaluate(task("relu"), _hostile(tmp_path, "selfwait", SELF_WAIT_PAYLOAD),
                            timeout_s=6, options={"measure": False})
    assert facts["status"] == "timeout", facts.get("status")
    assert time.monotonic() - began < 30
    assert facts["stray_lines"] >= 1
    # The worker is not frozen: the next candidate gets its verdict.
    assert worker.evaluate(task("relu"), kernel("relu", "ok"),
                           options={"measure": False})["status"] == "ok"


@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_output_files_replaced_by_a_link_or_a_pipe_read_nothing_of_the_host(
        worker: Worker, tmp_path: Path, kind: str) -> None:
    secret = tmp_path / "host_secret.txt"
    secret.write_text("adx-host-secret-31f9\n")
    make = (f"os.symlink({str(secret)!r}, name)" if kind == "symlink" else "os.mkfifo(name)")
    payload = f'''
import os
print("before", flush=True)
for name in ("stdout.txt", "stderr.txt"):
    os.unlink(name)
    {make}
'''
    began = time.monotonic()
    facts = worker.evaluate(task("relu"), _hostile(tmp_path, kind, payload),
                            options={"measure": False})
    assert time.monotonic() - began < 60  # A pipe in their place does not block the zygote.
    for stream in ("stdout", "stderr"):
        assert "adx-host-secret" not in facts[stream]
    if kind == "symlink":
        assert "replaced by a symbolic link" in facts["stdout"]
    else:
        assert facts["stdout"] == "[stdout.txt is not a plain file]"


# The four lines of the last attack round, on the CPU key: a slow relu for every caller, the
# reference included.
LIBRARY_PAYLOAD = r'''
import time, torch
_lib = torch.library.Library("aten", "IMPL")
def _slow_relu(x):
    time.sleep(0.005)
    return torch.clamp(x, min=0)
_lib.impl("relu", _slow_relu, "CPU")
'''


def test_a_kernel_registered_for_torchs_own_operator_is_a_fact(worker: Worker,
                                                                tmp_path: Path) -> None:
    facts = worker.evaluate(task("relu"), _hostile(tmp_path, "library", LIBRARY_PAYLOAD))
    overrides = facts.get("dispatcher_overrides", [])
    assert any(line.startswith("aten::relu: CPU: registered at ") and "payload_library.py" in line
               for line in overrides), overrides
    # An honest kernel, after it in the same worker, registers nothing (each job its own process).
    honest = worker.evaluate(task("relu"), kernel("relu", "ok"), options={"measure": False})
    assert honest.get("dispatcher_overrides", []) == [], honest.get("dispatcher_overrides")


def test_a_custom_operator_of_the_candidates_own_is_not_an_override(worker: Worker,
                                                                     tmp_path: Path) -> None:
    payload = r'''
import torch
@torch.library.custom_op("adx_candidate::twice", mutates_args=())
def twice(x: torch.Tensor) -> torch.Tensor:
    return x * 2
assert torch.ops.adx_candidate.twice(torch.ones(2)).sum().item() == 4
'''
    facts = worker.evaluate(task("relu"), _hostile(tmp_path, "own_op", payload),
                            options={"measure": False})
    assert facts["status"] == "ok", facts.get("error")
    assert facts.get("dispatcher_overrides", []) == []


def test_the_filter_refuses_typing_into_the_controlling_terminal() -> None:
    """A pty made this process's controlling terminal, then the sandbox's filter: TIOCSTI and
    TIOCLINUX are refused (EPERM) on it, where without the filter TIOCSTI types."""
    pytest.importorskip("pyseccomp")
    import fcntl
    import os
    import pty
    import termios

    from adaexplore_worker.sandbox import syscall_filter

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # The child: a session of its own, the pty its controlling terminal.
        code = {}
        try:
            os.close(read_end)
            os.setsid()
            master, slave = pty.openpty()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            try:
                fcntl.ioctl(slave, termios.TIOCSTI, b"x")
                code["before"] = "typed"
            except OSError as e:
                code["before"] = f"errno {e.errno}"
            syscall_filter.install()
            for name, request, arg in (("TIOCSTI", termios.TIOCSTI, b"y"),
                                       ("TIOCLINUX", 0x541C, b"\x06")):
                try:
                    fcntl.ioctl(slave, request, arg)
                    code[name] = "done"
                except OSError as e:
                    code[name] = f"errno {e.errno}"
        finally:
            os.write(write_end, json.dumps(code).encode())
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as f:
        code = json.loads(f.read() or "{}")
    os.waitpid(pid, 0)
    import errno
    try:
        legacy = Path("/proc/sys/dev/tty/legacy_tiocsti").read_text().strip() == "1"
    except OSError:
        legacy = True  # Kernels before 6.2: TIOCSTI always allowed on one's own terminal.
    if legacy:  # What the filter refuses worked before it.
        assert code.get("before") == "typed", code
    assert code.get("TIOCSTI") == f"errno {errno.EPERM}", code
    assert code.get("TIOCLINUX") == f"errno {errno.EPERM}", code


def test_files_in_the_sandboxs_tmpfs_count_in_the_memory_limit(worker: Worker,
                                                                tmp_path: Path) -> None:
    """Its private /tmp and /dev/shm are RAM, each as large as the job's limit: 1.1 GB written
    there by a process of 0.4 GB breaks a 1.2 GB limit."""
    payload = r'''
import time
chunk = b"x" * (64 << 20)
with open("/tmp/hold", "wb") as f:
    for _ in range(11):
        f.write(chunk)
with open("/dev/shm/hold", "wb") as f:
    for _ in range(6):
        f.write(chunk)
time.sleep(8)
'''
    facts = worker.evaluate(task("relu"), _hostile(tmp_path, "tmpfs", payload), timeout_s=60,
                            options={"measure": False}, memory_limit_mb=1200)
    assert facts["status"] == Status.MEMORY_LIMIT, (facts.get("status"), facts.get("error"))


def test_a_root_that_is_still_the_hosts_counts_no_tmpfs(tmp_path: Path) -> None:
    """Between the sandbox's init starting and moving into its new root, its root is the
    host's: the host's /tmp (a disk, tens of GB used in CI) is not the candidate's memory. Six
    evaluations at once once charged it to a task as 19 GB during "starting"."""
    hold = Path("/tmp") / f"adaexplore-host-{os.getpid()}"
    hold.write_bytes(b"x" * (8 << 20))
    try:
        assert process_tree.private_tmpfs_bytes("/proc/self/root") == 0
        assert process_tree.private_tmpfs_bytes(f"/proc/{os.getpid()}/root") == 0
    finally:
        hold.unlink()


def test_pages_a_tree_shares_count_once_in_its_memory(tmp_path: Path) -> None:
    """A candidate's pool of forks shares its parent's pages: resident sizes counted them once
    per process (5 x 256 MB for 256 MB held)."""
    import subprocess
    import sys
    script = """
import os, sys, time
held = bytearray(256 << 20)
held[::4096] = b"x" * len(held[::4096])
for _ in range(4):
    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)
print("ready", flush=True)
time.sleep(60)
"""
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        processes = process_tree.processes_now()
        pids = process_tree.tree(p.pid, processes)
        assert len(pids) == 5
        resident = 0
        for pid in pids:
            with open(f"/proc/{pid}/statm") as f:
                resident += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        counted = process_tree.tree_rss(p.pid, processes, set())
        assert resident > 5 * (256 << 20)
        assert (256 << 20) < counted < 2 * (256 << 20), (counted >> 20, resident >> 20)
    finally:
        process_tree.kill_descendants(p.pid, set())
        p.kill()
        p.wait()


def test_a_datasets_blobs_are_readable_and_nothing_else_of_its_folder(worker: Worker,
                                                                      tmp_path: Path) -> None:
    """A FlashInfer definition given by an absolute path makes the folder three levels up its
    dataset's root: a project folder, say, with its run database and `.env`."""
    root = tmp_path / "project"
    (root / "blob" / "workloads").mkdir(parents=True)
    (root / "blob" / "workloads" / "x.safetensors").write_text("blob")
    (root / ".env").write_text("OPENAI_API_KEY=adx-project-secret\n")
    payload = f'''
for name in ("blob/workloads/x.safetensors", ".env"):
    try:
        print("READ", name, open({str(root)!r} + "/" + name).read().strip(), flush=True)
    except OSError as e:
        print("READ", name, "refused", type(e).__name__, flush=True)
'''
    facts = worker.evaluate(task("relu"), _hostile(tmp_path, "dataset", payload),
                            options={"measure": False}, data_root=str(root))
    lines = [l for l in facts["stdout"].splitlines() if l.startswith("READ")]
    assert lines == ["READ blob/workloads/x.safetensors blob",
                     "READ .env refused FileNotFoundError"], facts["stdout"]
