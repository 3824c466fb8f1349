"""Issue 39's probe: what the kernel trace's Chrome events (torch.profiler, CUPTI activity) say of
each kernel beyond its name and time, for a counter-free profile: registers, shared memory, grid,
block, estimated occupancy. Runs a Triton elementwise kernel (a small block, many registers:
not), a bf16 torch.mm and a 1-element kernel; prints each kernel event's args as JSON lines.

    python3 bench/gpu/trace_args.py OUT_JSONL"""

from __future__ import annotations

import json
import os
import sys
import tempfile

import torch
import triton
import triton.language as tl
from torch.profiler import ProfilerActivity, profile


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2.0, mask=mask)


def main() -> None:
    x = torch.randn(1 << 26, device="cuda")
    y = torch.empty_like(x)
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    tiny = torch.ones(1, device="cuda")
    for _ in range(2):  # Compiled and warm before the traced run.
        _scale[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        torch.mm(a, a)
        tiny.add_(1)
    torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "trace.json")
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            _scale[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
            _scale[(triton.cdiv(x.numel(), 64),)](x, y, x.numel(), BLOCK=64)
            torch.mm(a, a)
            tiny.add_(1)
            torch.cuda.synchronize()
        prof.export_chrome_trace(path)
        events = json.load(open(path)).get("traceEvents", [])
    props = torch.cuda.get_device_properties(0)
    device = {k: getattr(props, k, None) for k in (
        "name", "multi_processor_count", "regs_per_multiprocessor", "max_threads_per_multi_processor",
        "shared_memory_per_multiprocessor", "shared_memory_per_block_optin", "warp_size")}
    with open(sys.argv[1], "w") as out:
        out.write(json.dumps({"device": device}) + "\n")
        for e in events:
            if e.get("cat") == "kernel":
                row = {"name": e.get("name", "")[:120], "dur_us": e.get("dur"), "args": e.get("args")}
                out.write(json.dumps(row) + "\n")
                print(json.dumps(row))
    print(json.dumps(device))


if __name__ == "__main__":
    main()
