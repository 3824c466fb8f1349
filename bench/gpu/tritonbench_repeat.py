"""Whether a TritonBench-G operator's test gives the same outputs for the same seed, call after
call: the task's model (kinds/tritonbench.py) loaded twice from one operator file, as the worker
loads the reference and a candidate, then called on one seed in several orders and memory states
(fresh, after other seeds, after the allocator's free memory is filled with NaN as trials.poison
does). Prints, per pair of calls compared, the elements that differ by the timed re-check's rule
(check.count_mismatches) and the first such element. A diagnosis of a false "timed runs do not
match" verdict (issue 54, chunk_gated_attention), not a benchmark.

  PYTHONPATH=python python3 bench/gpu/tritonbench_repeat.py OPERATOR.py [SEED ...]
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

import torch

from adaexplore_worker.correctness import check
from adaexplore_worker.kinds import tritonbench


def load(path: str, folder: str) -> torch.nn.Module:
    os.makedirs(folder, exist_ok=True)
    local = os.path.join(folder, os.path.basename(path))
    shutil.copy(path, local)
    return tritonbench.load_task(local, None, "cuda").model_class().cuda()


def poison() -> None:
    torch.cuda.synchronize()
    blocks = [torch.empty(256 << 20, dtype=torch.uint8, device="cuda")]
    for b in blocks:
        b.fill_(0xFF)
    torch.cuda.synchronize()


def call(model: torch.nn.Module, seed: int) -> list[torch.Tensor]:
    with torch.no_grad():
        out = model(torch.tensor(seed, dtype=torch.int64, device="cuda"))
    torch.cuda.synchronize()
    return [o.clone() for o in out]


def differ(name: str, a: list[torch.Tensor], b: list[torch.Tensor]) -> None:
    for i, (x, y) in enumerate(zip(a, b)):
        bad = check.count_mismatches(x, y, "scaled", 1e-2, 1e-2)
        flat_x, flat_y = x.reshape(-1).float(), y.reshape(-1).float()
        same = (flat_x == flat_y) | (flat_x.isnan() & flat_y.isnan())
        where = (~same).nonzero()
        first = ""
        if where.numel():
            j = int(where[0])
            first = f"; first bitwise difference at {j}: {float(flat_x[j])!r} vs {float(flat_y[j])!r}"
        print(f"{name} output {i} {tuple(x.shape)} {x.dtype}: {bad} outside tolerance, "
              f"{int((~same).sum())} differ bitwise, nan {int(flat_x.isnan().sum())}/"
              f"{int(flat_y.isnan().sum())}, inf {int(flat_x.isinf().sum())}/"
              f"{int(flat_y.isinf().sum())}{first}")


def main() -> None:
    path = sys.argv[1]
    seeds = [int(s) for s in sys.argv[2:]] or [0, 1234567, 2**31 - 2]
    work = tempfile.mkdtemp(prefix="tb-repeat-")
    ref = load(path, os.path.join(work, "ref"))
    cand = load(path, os.path.join(work, "cand"))
    for seed in seeds:
        print(f"seed {seed}")
        r1 = call(ref, seed)
        c1 = call(cand, seed)
        differ("  reference vs candidate, fresh", r1, c1)
        r2 = call(ref, seed)
        differ("  reference twice", r1, r2)
        call(cand, seed + 1)
        c2 = call(cand, seed)
        differ("  candidate after another seed vs reference", r1, c2)
        poison()
        c3 = call(cand, seed)
        differ("  candidate in poisoned memory vs reference", r1, c3)
        poison()
        r3 = call(ref, seed)
        differ("  reference in poisoned memory vs reference", r1, r3)


if __name__ == "__main__":
    main()
