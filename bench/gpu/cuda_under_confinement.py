"""Can CUDA start in a process confined before it starts, and are then all of its threads
confined? Each question in a forked child of this (CUDA-free) process:

1. `landlock:<extra>`: no_new_privs and Landlock's write rules over a scratch folder, /dev and
   /tmp plus <extra>, then CUDA starts: which write the driver's start needs (an earlier H200
   probe found that CUDA cannot start under the rules alone: cudaGetDeviceCount error 304).
2. `sandbox`: the candidate's whole sandbox as the worker enters it (sandbox.enter confines the
   evaluator while it is its only thread), then CUDA starts, a Triton kernel runs, a CUDA host
   callback runs, torch's CPU pool runs: every thread of the process as /proc shows it.

Prints one JSON line per variant; with strace on the machine, also the failing file calls of
the Landlock-only start.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))

from adaexplore_worker import probe  # noqa: E402
from adaexplore_worker.process import job_files  # noqa: E402
from adaexplore_worker.sandbox import privileges, sandbox  # noqa: E402


def cuda_start() -> dict:
    import torch
    try:
        x = torch.ones(1 << 20, device="cuda")
        torch.cuda.synchronize()
        return {"cuda": "started", "sum": float(x.sum())}
    except Exception as e:  # noqa: BLE001
        return {"cuda": f"failed: {type(e).__name__}: {str(e)[:300]}"}


def landlock_variant(extra: list[str]) -> dict:
    scratch = tempfile.mkdtemp(prefix="adx-ll-")

    def answer(_: int) -> dict:
        privileges.set_no_new_privs()
        privileges.restrict_writes([scratch, "/dev", "/tmp", *map(os.path.realpath, extra)])
        return cuda_start()

    out = probe.in_child(answer, 120, "landlock " + ",".join(extra))
    shutil.rmtree(scratch, ignore_errors=True)
    return out


def sandbox_variant() -> dict:
    scratch = tempfile.mkdtemp(prefix="adx-box-")
    files = job_files.prepare(scratch, "probe", "", "")
    settings = sandbox.Settings(enabled=True, readable=job_files.readable_paths())
    plan = settings.plan(files, "", 0)

    def answer(fd: int) -> dict:
        box = sandbox.enter(plan, close_in_relays=(fd,))
        os.environ.update(files.cache_environment())
        facts = {"missing": box.missing(), "reasons": box.facts.get("reasons", {})}
        facts["after_enter"] = sandbox.confined_threads()
        facts.update(cuda_start())
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def double(x_ptr, n, BLOCK: tl.constexpr):
            i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(x_ptr + i, tl.load(x_ptr + i, mask=i < n) * 2, mask=i < n)

        try:
            x = torch.ones(4096, device="cuda")
            double[(4,)](x, 4096, BLOCK=1024)
            torch.cuda.synchronize()
            facts["triton"] = float(x.sum())
        except Exception as e:  # noqa: BLE001
            facts["triton"] = f"failed: {type(e).__name__}: {str(e)[:300]}"
        seen = {}
        try:  # A host callback runs on a driver thread: what that thread may do.
            import ctypes
            cudart = ctypes.CDLL("libcudart.so", use_errno=True)
        except OSError:
            cudart = None
        if cudart is not None:
            callback_type = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

            def on_host(_: int) -> None:
                with open("/proc/thread-self/status") as f:
                    seen.update(line.split(":", 1) for line in f if line.startswith(
                        ("Name", "CapEff", "NoNewPrivs", "Seccomp")))
            keep = callback_type(on_host)
            stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
            code = cudart.cudaLaunchHostFunc(stream, keep, None)
            torch.cuda.synchronize()
            facts["host_callback"] = {"code": code, **{k: v.strip() for k, v in seen.items()}}
        torch.set_num_threads(4)
        torch.randn(1 << 22).relu_().sum()  # torch's CPU pool threads start.
        facts["after_all"] = sandbox.confined_threads()
        return facts

    out = probe.in_child(answer, 300, "sandbox")
    shutil.rmtree(scratch, ignore_errors=True)
    return out


def strace_landlock() -> str:
    if shutil.which("strace") is None:
        return "no strace on this machine"
    scratch = tempfile.mkdtemp(prefix="adx-st-")
    code = (f"import sys; sys.path.insert(0, {os.path.join(os.path.dirname(__file__), '..', '..', 'python')!r});"
            "from adaexplore_worker.sandbox import privileges; privileges.set_no_new_privs();"
            f"privileges.restrict_writes([{scratch!r}, '/dev', '/tmp']);"
            "import torch; torch.ones(1, device='cuda')")
    p = subprocess.run(["strace", "-f", "-e", "trace=%file,%desc", "-o", f"{scratch}/trace",
                        sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    with open(f"{scratch}/trace") as f:
        refused = [line.strip() for line in f if "EACCES" in line or "EPERM" in line]
    return "\n".join(refused[:40]) + f"\n(exit {p.returncode})"


if __name__ == "__main__":
    for extra in ([], ["/proc/self"], ["/proc"]):
        print(json.dumps({"variant": "landlock:" + ",".join(extra), **landlock_variant(extra)}),
              flush=True)
    print(json.dumps({"variant": "sandbox", **sandbox_variant()}), flush=True)
    print("strace of the Landlock-only start:\n" + strace_landlock(), flush=True)
