"""Entry point: python -m adaexplore_worker --fd 3 --device cuda|cpu --scratch DIR --slots N.

Imports torch and triton once, probes the device in a throwaway child (the zygote itself must
never initialise CUDA, or its forks could not), says hello, then serves jobs until shutdown or
until the controller closes the connection.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from typing import Any

from . import PROTOCOL_VERSION
from .protocol.channel import Channel

PROBE_TIMEOUT_SECONDS = 120


def harness_digest() -> str:
    """SHA-256 of this package's sources: the checks and the timer. Results and baselines are
    cached under it, so a changed harness measures again instead of serving old verdicts."""
    import hashlib

    here = os.path.dirname(os.path.abspath(__file__))
    names = [os.path.relpath(os.path.join(folder, name), here)
             for folder, _, files in os.walk(here) for name in files if name.endswith(".py")]
    digest = hashlib.sha256()
    for name in sorted(names):  # Subpackages' too (kinds/): "kinds/flashinfer.py".
        with open(os.path.join(here, name), "rb") as f:
            digest.update(name.encode() + b"\0" + f.read() + b"\0")
    return digest.hexdigest()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="adaexplore_worker")
    parser.add_argument("--fd", type=int, default=3)
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--scratch", required=True)
    parser.add_argument("--slots", type=int, default=1)
    parser.add_argument("--ahead", type=int, default=0,
                        help="jobs beyond the slots whose task phases run before a slot frees")
    parser.add_argument("--reference-cache-mb", type=float, default=0,
                        help="disk for reference outputs shared by jobs of one task (0: off)")
    parser.add_argument("--lock-patience", type=float, default=0,
                        help="seconds a check may hold the GPU while a timing waits before it is "
                             "paused until the timings are done (0: never)")
    parser.add_argument("--judge-threads", type=int, default=4,
                        help="host threads of each judge, which compares a candidate's outputs "
                             "beside the next candidates' evaluations (judge.py)")
    parser.add_argument("--sandbox", action="store_true",
                        help="run every candidate in its own sandbox (sandbox.py)")
    parser.add_argument("--require-sandbox", action="store_true",
                        help="never import a candidate whose sandbox lacks a protection")
    parser.add_argument("--compute-sanitizer", default="",
                        help="compute-sanitizer's path for the `sanitize` option (default: "
                             "looked up on PATH and in CUDA's usual places)")
    args = parser.parse_args(argv)

    channel = Channel(args.fd)
    start = time.perf_counter()
    try:
        import torch
        import triton
    except Exception as e:  # noqa: BLE001
        channel.send({"type": "hello", "protocol": PROTOCOL_VERSION,
                      "error": f"cannot import torch/triton: {type(e).__name__}: {e}"})
        return 1
    import_s = time.perf_counter() - start
    os.makedirs(os.path.join(args.scratch, "jobs"), exist_ok=True)
    device = _probe(args.device)
    from .evaluation import references
    references.warm_up()  # Once here, not in every child: the children inherit it.
    from .evaluation import sanitizer
    sanitizer.FOUND = sanitizer.find(args.compute_sanitizer)  # The children inherit it.
    sandboxing = _sandboxing(args)
    gpu_uuid = str(device.pop("uuid", ""))  # For the zygote's NVML reads; not part of the hello.
    hello: dict[str, Any] = {
        "type": "hello", "protocol": PROTOCOL_VERSION, "pid": os.getpid(),
        "python": platform.python_version(), "torch": torch.__version__,
        "triton": triton.__version__, "device": device, "slots": max(1, args.slots),
        "ahead": max(0, args.ahead),
        "import_s": round(import_s, 3),
        "triton_interpret": os.environ.get("TRITON_INTERPRET") == "1",
        "harness": harness_digest(),
        "containment": sandboxing.containment,
        "compute_sanitizer": sanitizer.FOUND,
    }
    if "error" in device:
        hello["error"] = device["error"]
        channel.send(hello)
        return 1
    channel.send(hello)
    os.set_blocking(args.fd, False)
    from .process.zygote import Zygote
    Zygote(channel, args.device, args.scratch, max(1, args.slots),
           args.reference_cache_mb, max(0, args.ahead), sandboxing,
           max(0.0, args.lock_patience), gpu_uuid, max(1, args.judge_threads)).run()
    return 0


def _sandboxing(args: argparse.Namespace) -> Any:
    """The sandbox's settings, checked from inside by a throwaway child (sandbox_selftest)."""
    from .process import job_files
    from .sandbox import sandbox, sandbox_selftest

    from .evaluation import sanitizer

    readable = job_files.readable_paths()
    if tool := sanitizer.FOUND.get("path"):  # Its folder holds the libraries it injects.
        readable.append(os.path.dirname(tool))
    settings = sandbox.Settings(enabled=args.sandbox, required=args.require_sandbox,
                                readable=readable, frozen=_flashinfer_cache())
    if not args.sandbox:
        settings.containment = {"off": "--no-sandbox", **{p: False for p in sandbox.PROTECTIONS}}
        return settings
    sandbox.warm_up()
    files = job_files.prepare(args.scratch, "sandbox-selftest", "", "")
    neighbour = os.path.join(args.scratch, "jobs", "neighbour", "secret.txt")
    os.makedirs(os.path.dirname(neighbour), exist_ok=True)
    with open(neighbour, "w", encoding="ascii") as f:
        f.write("a neighbour's file")
    plan = settings.plan(files, "", 0)
    settings.containment = sandbox_selftest.run(plan, os.getpid(), neighbour)
    job_files.finish(files, set())
    import shutil
    shutil.rmtree(os.path.dirname(neighbour), ignore_errors=True)
    return settings


def _flashinfer_cache() -> list[str]:
    """FlashInfer's kernel cache below its base: the expert baseline compiles there in the
    task's phases, and loads from it while timing."""
    import importlib.util

    base = os.environ.get("FLASHINFER_WORKSPACE_BASE")
    if not base or importlib.util.find_spec("flashinfer") is None:
        return []
    path = os.path.join(base, ".cache", "flashinfer")
    os.makedirs(path, exist_ok=True)
    return [path]


def _probe(kind: str) -> dict[str, Any]:
    """Device facts, read in a forked child so that this process never initialises CUDA."""
    from . import probe

    if kind == "cpu":
        return {"kind": "cpu", "name": platform.processor() or platform.machine(),
                "count": os.cpu_count() or 1}

    def answer(_: int) -> dict[str, Any]:
        import torch
        if not torch.cuda.is_available():
            return {"error": "CUDA is not available in this worker"}
        props = torch.cuda.get_device_properties(0)
        return {"kind": "cuda", "name": props.name, "count": torch.cuda.device_count(),
                "capability": f"{props.major}.{props.minor}",
                "memory_mb": props.total_memory // (1 << 20),
                "multiprocessors": props.multi_processor_count, "uuid": str(props.uuid),
                "cuda": torch.version.cuda, "ceilings": _ceilings(torch)}

    facts = probe.in_child(answer, PROBE_TIMEOUT_SECONDS, "probing the GPU")
    if "did not answer" in facts.get("error", ""):
        facts["error"] = "the GPU probe did not answer"
    return facts


def _ceilings(torch: Any) -> dict[str, Any]:
    """The device's measured ceilings, for the speed-of-light bound: device-to-device copy
    bandwidth (bytes read plus written per second) and the dense bf16 matrix rate, the fastest
    arithmetic any kernel can reach; for the profile's estimate the fp32 rate without TF32 and the
    SM's limits. Best of several runs on random data."""
    try:
        device = torch.device("cuda", 0)

        def best_ms(fn: Any, runs: int = 5) -> float:
            fn()
            best = float("inf")
            for _ in range(runs):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                end.record()
                end.synchronize()
                best = min(best, start.elapsed_time(end))
            return best

        x = torch.empty(1 << 28, dtype=torch.float32, device=device).uniform_()
        y = torch.empty_like(x)
        copy_ms = best_ms(lambda: y.copy_(x))
        n = 8192
        a = torch.randn(n, n, dtype=torch.bfloat16, device=device)
        b = torch.randn(n, n, dtype=torch.bfloat16, device=device)
        mm_ms = best_ms(lambda: a @ b)
        del a, b
        m = 4096  # fp32 without TF32: the peak of a kernel that keeps the task's fp32.
        allow_tf32 = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = False
        try:
            c = torch.randn(m, m, dtype=torch.float32, device=device)
            fp32_ms = best_ms(lambda: c @ c)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = allow_tf32
        props = torch.cuda.get_device_properties(device)
        return {"copy_bytes_per_s": 2 * x.numel() * x.element_size() / (copy_ms / 1e3),
                "bf16_flops_per_s": 2 * n**3 / (mm_ms / 1e3),
                "fp32_flops_per_s": 2 * m**3 / (fp32_ms / 1e3),
                # Per SM, for a launch's theoretical occupancy (the kernel trace has its shape).
                "sm_registers": props.regs_per_multiprocessor,
                "sm_shared_bytes": props.shared_memory_per_multiprocessor,
                "sm_threads": props.max_threads_per_multi_processor,
                "sms": props.multi_processor_count}
    except Exception as e:  # noqa: BLE001 - no ceilings only disables the bound.
        return {"error": f"{type(e).__name__}: {e}"}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
