"""Checks that a task file is usable, for task synthesis: it imports, its Model builds from
get_init_inputs(), and one forward pass on get_inputs() returns a non-empty tensor (or a tuple or
list of them, none empty). Prints one line, "ADAEXPLORE_CHECK <nonce> <json>", and exits 0 whether the task passed or not.
The nonce comes from $ADAEXPLORE_CHECK_NONCE, which is removed from the environment before the
task is imported, so a task that prints a verdict of its own cannot match it. The caller runs
it in its own process group under a time limit and kills it on overrun.

    python -m adaexplore_worker.check_task TASK.py [--device cpu|cuda]

Output: {"ok": true, "outputs": [[shape...], ...], "seconds": 0.4}
        {"ok": false, "reason": "forward raised ValueError: ...", "error": "<traceback>"}
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from typing import Any


def check(path: str, device: str) -> dict[str, Any]:
    import torch

    from .evaluation import load
    from .task import LoadError

    start = time.monotonic()
    stage = "import"
    try:
        task = load.load_task(path)
        stage = "get_init_inputs"
        init = task.get_init_inputs()
        if not isinstance(init, (list, tuple)):
            return {"ok": False, "reason": f"get_init_inputs() returned {type(init).__name__}, "
                                           "not a list"}
        stage = "building Model"
        model = task.model_class(*init).to(device).eval()
        stage = "get_inputs"
        inputs = task.get_inputs()
        if not isinstance(inputs, (list, tuple)):
            return {"ok": False, "reason": f"get_inputs() returned {type(inputs).__name__}, "
                                           "not a list"}
        inputs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in inputs]
        stage = "forward"
        with torch.no_grad():
            out = model(*inputs)
        if device == "cuda":
            torch.cuda.synchronize()
    except LoadError as e:
        return {"ok": False, "reason": str(e)}
    except BaseException as e:  # noqa: BLE001 - any failure of the task is the verdict.
        return {"ok": False, "reason": f"{stage} raised {type(e).__name__}: {e}"[:2000],
                "error": traceback.format_exc()[-8000:]}
    outputs = list(out) if isinstance(out, (list, tuple)) else [out]
    if not outputs or not all(isinstance(t, torch.Tensor) for t in outputs):
        return {"ok": False, "reason": "forward returned something other than tensors"}
    if any(t.numel() == 0 for t in outputs):
        return {"ok": False, "reason": "forward returned an empty tensor"}
    return {"ok": True, "outputs": [list(t.shape) for t in outputs],
            "seconds": round(time.monotonic() - start, 3)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="adaexplore_worker.check_task")
    parser.add_argument("task")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    args = parser.parse_args(argv)
    nonce = os.environ.pop("ADAEXPLORE_CHECK_NONCE", "")
    result = check(args.task, args.device)
    sys.stdout.flush()
    print(f"ADAEXPLORE_CHECK {nonce} " + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
