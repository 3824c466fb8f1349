"""A scripted OpenAI-compatible server whose replies are the real kernels of the reference run's
search trees (../shared/data/adaexplore-release/showcase), for a search on the GPU without an LLM.

    python3 showcase_llm.py KERNELS_DIR URLFILE [LATENCY_MEAN_S LATENCY_SD_S]

KERNELS_DIR holds one `<task>.json` per task (tools/device_bundle.sh writes them): the tree's
kernels in step order, each `{"step", "created_by", "code"}`. The task is read from the prompt's
first line (`# Task: <task>.py`). The proposer gets the task's large-step kernels in order, the
tuner its small-step kernels in order, each as one search/replace edit that turns the latest
version shown in the prompt into that kernel, and the reviser one line of advice. A task's list
starts over once used up. Replies are instant (the run measures the harness, not an LLM) unless
a latency is given: then each reply waits a normal draw of that mean and spread (at least 1 s),
as a reasoning model does."""

from __future__ import annotations

import json
import random
import re
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "fakes"))
from openai_stub import serve  # noqa: E402


def _latest_code(prompt: str) -> str:
    part = prompt.split("(latest: edit this one)", 1)[-1]
    match = re.search(r"```python\n(.*?)```", part, re.S)
    return match.group(1) if match else ""


class Script:
    def __init__(self, folder: Path) -> None:
        self.lock = threading.Lock()
        self.kernels: dict[str, dict[str, list[str]]] = {}
        self.served: dict[tuple[str, str], int] = {}
        for path in sorted(folder.glob("*.json")):
            queues: dict[str, list[str]] = {"large_step": [], "small_step": []}
            for node in json.loads(path.read_text()):
                if node["code"] and node["created_by"] in queues:
                    queues[node["created_by"]].append(node["code"])
            self.kernels[path.stem] = queues

    def _next(self, task: str, kind: str) -> str:
        queue = self.kernels[task][kind] or self.kernels[task]["large_step"]
        with self.lock:
            index = self.served.get((task, kind), 0)
            self.served[(task, kind)] = index + 1
        return queue[index % len(queue)]

    def reply(self, messages: list[dict]) -> str:
        user = messages[-1]["content"]
        found = re.match(r"# Task: (.+?)\.py", user)
        task = found.group(1) if found else ""
        if task not in self.kernels:
            return f"No kernels were bundled for task {task!r}."
        if "Review the implementation" in user:
            return "1. Fuse the elementwise tail into the main kernel and keep it in registers."
        if "Improve the latest" in user:
            latest = _latest_code(user)
            if not latest:
                return "The prompt showed no latest version to edit."
            kernel = self._next(task, "small_step")
            return (f"<reasoning_1>Rewrite the kernel.</reasoning_1>\n"
                    f"<old_str_1>\n{latest}</old_str_1>\n<new_str_1>\n{kernel}\n</new_str_1>\n")
        return f"Here is a kernel.\n```python\n{self._next(task, 'large_step')}\n```\n"


def _answer(script: Script, body: dict, latency: tuple[float, float] | None,
            draws: random.Random) -> str:
    if latency is not None:
        with script.lock:
            wait = max(1.0, draws.gauss(*latency))
        time.sleep(wait)
    return script.reply(body["messages"])


if __name__ == "__main__":
    script = Script(Path(sys.argv[1]))
    latency = (float(sys.argv[3]), float(sys.argv[4])) if len(sys.argv) > 4 else None
    draws = random.Random(40)
    _, url = serve(lambda _path, _headers, body: _answer(script, body, latency, draws))
    Path(sys.argv[2]).write_text(url)
    threading.Event().wait()
