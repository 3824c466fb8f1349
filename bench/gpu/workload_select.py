"""The users' workload for the evaluation benchmarks (issue 36): real LLM-written kernels with the
hard cases in them, as .device/workload/tasks/<task>.py and .device/workload/kernels/<task>/*.py
(the `eval --tasks-dir --kernels-dir` layout). Made by tools/device_bundle.sh from ../shared/data:

- from each of the reference run's ten showcase trees (KernelBench Level 2; nearly all of their
  large steps are autotuned Triton kernels, task 18 a microsecond-scale one): its first two large
  steps, the large step with the best speedup the release measured, one it judged incorrect and
  one that did not compile, where the tree has them;
- three whole Level-3 networks (ResNet18, VGG16, MiniGPTBlock) with the task's own Model as the
  candidate: heavy GPU work, and, under `strict`, a pure-PyTorch candidate;
- two candidates that hang in their check: a Python loop (hang_python.py) and a Triton kernel that
  spins on the GPU (hang_gpu.py).

    python3 bench/gpu/workload_select.py ../shared/data .device/workload
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import sys

LEVEL3 = ("9_ResNet18", "11_VGG16", "44_MiniGPTBlock")
HANG_PYTHON = """

def _hang(self, *args):
    while True:
        pass


ModelNew.forward = _hang
"""
HANG_GPU = """

import triton as _triton
import triton.language as _tl


@_triton.jit
def _spin(p, n):
    acc = _tl.load(p)
    i = 0
    while i < n:
        acc = acc * 0.999 + 1.0
        i += 1
    _tl.store(p, acc)


_forward = ModelNew.forward


def _spun(self, *args):
    buf = torch.zeros(1, device=args[0].device)
    _spin[(1,)](buf, 1 << 60)
    return _forward(self, *args)


ModelNew.forward = _spun
"""


def speedup(step: dict) -> float:
    """The speedup the release measured (score.fast_p: its runtime over PyTorch's)."""
    value = (step.get("score") or {}).get("fast_p")
    return float(value) if isinstance(value, (int, float)) else 0.0


def chosen(steps: list[dict]) -> dict[str, dict]:
    large = [s for s in steps if s["created_by"] == "large_step" and s.get("code")]
    correct = [s for s in large if (s.get("score") or {}).get("correct")]
    incorrect = [s for s in large if (s.get("score") or {}).get("compiled")
                 and not (s.get("score") or {}).get("correct")]
    broken = [s for s in large if not (s.get("score") or {}).get("compiled")]
    picks: dict[str, dict] = {}
    taken: set[int] = set()

    def pick(label: str, step: dict) -> None:
        if step["step"] not in taken:
            taken.add(step["step"])
            picks[f"{label}_step{step['step']}"] = step

    for i, step in enumerate(large[:2]):
        pick(f"first{i}", step)
    if correct:
        pick("best", max(correct, key=speedup))
    if incorrect:
        pick("incorrect", next((s for s in incorrect if s["step"] not in taken), incorrect[0]))
    if broken:
        pick("no_compile", broken[0])
    return picks


def main(data: str, out: str) -> None:
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(f"{out}/tasks")
    count = 0
    for tree_path in sorted(glob.glob(f"{data}/adaexplore-release/showcase/kb-l2-p*-200.json")):
        tree = json.load(open(tree_path))
        problem = os.path.basename(tree_path).split("-")[2][1:]
        task = glob.glob(f"{data}/kernelbench/level2/{problem}_*.py")[0]
        name = os.path.splitext(os.path.basename(task))[0]
        shutil.copy(task, f"{out}/tasks/")
        os.makedirs(f"{out}/kernels/{name}")
        for label, step in chosen(tree["steps"]).items():
            with open(f"{out}/kernels/{name}/{label}.py", "w") as f:
                f.write(step["code"])
            count += 1
        if problem == "18":
            first = sorted(os.listdir(f"{out}/kernels/{name}"))[0]
            code = open(f"{out}/kernels/{name}/{first}").read()
            with open(f"{out}/kernels/{name}/hang_python.py", "w") as f:
                f.write(code + HANG_PYTHON)
            count += 1
        if problem == "42":
            first = sorted(os.listdir(f"{out}/kernels/{name}"))[0]
            code = open(f"{out}/kernels/{name}/{first}").read()
            with open(f"{out}/kernels/{name}/hang_gpu.py", "w") as f:
                f.write(code + HANG_GPU)
            count += 1
    for name in LEVEL3:
        task = f"{data}/kernelbench/level3/{name}.py"
        shutil.copy(task, f"{out}/tasks/")
        os.makedirs(f"{out}/kernels/{name}")
        with open(f"{out}/kernels/{name}/own_model.py", "w") as f:
            f.write(open(task).read() + "\n\nclass ModelNew(Model):\n    pass\n")
        count += 1
    print(f"workload: {count} candidates for {len(os.listdir(f'{out}/tasks'))} tasks in {out}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
