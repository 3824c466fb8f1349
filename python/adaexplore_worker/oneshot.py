"""One evaluation in this process, then exit: the "fresh Python process per candidate" pattern
that peer harnesses use, with exactly the checks and timing of the real worker. It exists for
bench/eval_throughput, which measures what the long-lived zygote saves; the tool itself never
uses it (one candidate that crashes here takes the whole process with it).

    python -m adaexplore_worker.oneshot --job job.json --out result.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from typing import Any


class _ImmediateChannel:
    """Stands in for the zygote: every lock and slot request is granted at once."""

    def send(self, message: dict[str, Any]) -> None:
        self.last = message

    def read_blocking(self) -> dict[str, Any]:
        return {"type": "go" if self.last.get("type") == "ready" else "granted"}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="adaexplore_worker.oneshot")
    parser.add_argument("--job", required=True, help="an eval message as JSON")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    import torch  # noqa: F401 - the import is part of what this pattern pays for.
    import triton  # noqa: F401

    from .evaluation import child
    from .protocol.job import Job
    from .protocol.channel import sanitize

    with open(args.job, encoding="utf-8") as f:
        job = Job.from_json(json.load(f))
    work = tempfile.mkdtemp(prefix="adaexplore-oneshot-")
    task_path = os.path.join(work, "task.py")
    candidate_path = os.path.join(work, "candidate.py")
    with open(task_path, "w", encoding="utf-8") as f:
        f.write(job.task.source)
    with open(candidate_path, "w", encoding="utf-8") as f:
        f.write(job.candidate.source)
    os.environ["TORCH_EXTENSIONS_DIR"] = os.path.join(work, "torch_extensions")
    facts = child.evaluate(job, _ImmediateChannel(), task_path, candidate_path)  # type: ignore
    facts["wall_s"] = round(time.perf_counter() - start, 4)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(sanitize(facts), f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
