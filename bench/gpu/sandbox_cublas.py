"""Why one honest kernel (level 2 problem 95: cuBLAS fp32 GEMM + a Triton epilogue) came back
1 element past the tolerance inside the sandbox and within it outside: the same fp32 GEMM on the
same inputs, in forked children with the sandbox off, entered (namespaces, mount view, and since
the judge's reach was closed every protection: capabilities, no_new_privs, Landlock, seccomp, all
before CUDA starts), sealed after CUDA started, or one protection alone before it starts
(only_caps, only_nnp, only_landlock, only_seccomp). Prints a
checksum of each result and its largest difference from the first: cuBLAS choosing another
algorithm in one of them shows as a difference.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import torch  # noqa: E402

from adaexplore_worker import probe  # noqa: E402
from adaexplore_worker.process import job_files  # noqa: E402
from adaexplore_worker.sandbox import sandbox  # noqa: E402


def gemm() -> dict:
    torch.backends.cuda.matmul.allow_tf32 = False
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(1024, 8192, device="cuda", generator=g) * 10
    w = torch.randn(8192, 8192, device="cuda", generator=g)
    y = torch.mm(x, w.t())
    torch.cuda.synchronize()
    return {"sha": hashlib.sha256(y.cpu().numpy().tobytes()).hexdigest()[:16],
            "sum": float(y.double().sum()), "y00": float(y[0, 0])}


def variant(mode: str) -> dict:
    scratch = tempfile.mkdtemp(prefix="adx-cublas-")
    files = job_files.prepare(scratch, mode, "", "")
    settings = sandbox.Settings(enabled=mode != "off", readable=job_files.readable_paths())
    plan = settings.plan(files, "", 0, os.path.join(scratch, "references"))

    def answer(fd: int) -> dict:
        box = sandbox.enter(plan, close_in_relays=(fd,))
        os.environ.update(files.cache_environment())
        if mode.startswith("only_"):  # One protection alone before CUDA starts.
            from adaexplore_worker.sandbox import privileges, syscall_filter
            privileges.set_no_new_privs()
            {"only_caps": privileges.drop_capabilities,
             "only_landlock": lambda: privileges.restrict_writes(
                 [*plan.writable, "/dev", "/tmp"]),
             "only_seccomp": syscall_filter.install,
             "only_nnp": lambda: None}[mode]()
        torch.ones(1, device="cuda")  # CUDA starts (the reference phase would).
        if mode == "sealed":  # Confined since `enter`; the init now seals the view too.
            sandbox.seal(box)
        return {**gemm(), "missing": box.missing() if mode != "off" else []}

    return probe.in_child(answer, 120, mode)


if __name__ == "__main__":
    modes = sys.argv[1:] or ["off", "entered", "sealed", "off"]
    for mode in modes:
        print(mode, variant(mode), flush=True)
