"""Independent timing cross-check: re-times every correct candidate of an `adaexplore eval --json`
run, and its task's reference, with triton.testing.do_bench (median, its own L2 flush, its own
warm-up), and compares the speedups with adaexplore's.

    python3 python/bench/do_bench_check.py results.jsonl [--out check.json]

Both models are built as adaexplore builds them (seed 42, on the GPU, TF32 off); inputs come from
the task's get_inputs() on the GPU. Nothing here is shared with the worker's timing code.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib.util
import json
import sys
import types

import torch
import triton.testing


def load_module(path: str, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def time_pair(task: types.ModuleType, kernel: types.ModuleType) -> tuple[float, float]:
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = torch.device("cuda")
    with torch.device(device):
        torch.manual_seed(42)
        init = task.get_init_inputs()
        torch.manual_seed(42)
        ref = task.Model(*init)
        torch.manual_seed(42)
        new = kernel.ModelNew(*init)
        torch.manual_seed(1234)
        x = task.get_inputs()
    x = [t.to(device) if isinstance(t, torch.Tensor) else t for t in x]
    with torch.no_grad():
        ms_ref = triton.testing.do_bench(lambda: ref(*x), warmup=100, rep=500,
                                         return_mode="median")
        ms_new = triton.testing.do_bench(lambda: new(*x), warmup=100, rep=500,
                                         return_mode="median")
    torch.cuda.empty_cache()
    return ms_ref, ms_new


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("results", help="adaexplore eval --json output")
    parser.add_argument("--out")
    args = parser.parse_args()
    rows = []
    with open(args.results) as f:
        results = [json.loads(line) for line in f if line.strip()]
    chosen = [(i, r) for i, r in enumerate(results)
              if r["verdict"] == "correct" and r["speedup"] is not None]
    # Import everything first, in parallel: CUDA load_inline builds take a minute each.
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        modules = dict(zip([i for i, _ in chosen], pool.map(
            lambda item: (load_module(item[1]["task_path"], f"dbc_task_{item[0]}"),
                          load_module(item[1]["kernel"], f"dbc_kernel_{item[0]}")), chosen)))
    for i, r in chosen:
        ms_ref, ms_new = time_pair(*modules[i])
        ours = r["speedup"]
        theirs = ms_ref / ms_new
        rows.append({"kernel": r["kernel"], "ours": ours, "do_bench": theirs,
                     "ours_kernel_ms": r["timing"]["candidate"]["median_ms"],
                     "do_bench_kernel_ms": ms_new,
                     "ours_reference_ms": r["timing"]["reference"]["median_ms"],
                     "do_bench_reference_ms": ms_ref,
                     "relative_difference": ours / theirs - 1})
    print(f"{'candidate':60} {'ours':>8} {'do_bench':>9} {'diff':>7}  {'kern ms ours/db':>18}")
    for row in rows:
        name = row["kernel"][-60:]
        print(f"{name:60} {row['ours']:8.3f} {row['do_bench']:9.3f} "
              f"{100 * row['relative_difference']:6.1f}%  "
              f"{row['ours_kernel_ms']:8.4f}/{row['do_bench_kernel_ms']:.4f}")
    within = sum(1 for r in rows if abs(r["relative_difference"]) <= 0.05)
    print(f"{within} of {len(rows)} speedups within 5% of do_bench")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
