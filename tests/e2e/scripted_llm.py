"""A scripted OpenAI-compatible server for end-to-end tests of `adaexplore run`: it answers the
proposer with whole kernels (the example ReLU, sometimes a wrong one, sometimes no code), the
reviser with advice, and the tuner with a real search/replace edit of the latest version (halving
its block size). Run it in a thread with `start()`; `python scripted_llm.py PORTFILE` serves
until killed (used to record the bundled demo)."""

from __future__ import annotations

import re
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "fakes"))
from openai_stub import serve  # noqa: E402
GOOD = (ROOT / "examples" / "kernels" / "relu" / "ok.py").read_text()
WRONG = GOOD.replace("tl.maximum(x, 0.0)", "tl.maximum(x, 0.5)")


def _latest_code(prompt: str) -> str:
    part = prompt.split("(latest: edit this one)", 1)[-1]
    match = re.search(r"```python\n(.*?)```", part, re.S)
    return match.group(1) if match else ""


class Script:
    def __init__(self, failing_tuner_replies: int = 0, delay_s: float = 0) -> None:
        self.lock = threading.Lock()
        self.proposals = 0
        self.calls: list[str] = []
        self.models: list[tuple[str, str]] = []  # (role, the request's model) per call.
        self.tuner_prompts: list[str] = []
        # The first N tuner replies edit text that is not in the kernel (no edit applies).
        self.failing_tuner_replies = failing_tuner_replies
        self.delay_s = delay_s  # Each reply waits this long, as a model thinks.
        self.answering = 0  # Requests being answered now, and the most at once.
        self.most_at_once = 0

    def handle(self, _path: str, _headers: object, body: dict) -> str:
        """The reply to one request, as tests/fakes/openai_stub.serve calls it."""
        with self.lock:
            self.answering += 1
            self.most_at_once = max(self.most_at_once, self.answering)
        try:
            time.sleep(self.delay_s)
            text = self.reply(body["messages"])
            with self.lock:
                self.models.append((self.calls[-1], body.get("model", "")))
            return text
        finally:
            with self.lock:
                self.answering -= 1

    def reply(self, messages: list[dict]) -> str:
        user = messages[-1]["content"]
        with self.lock:
            if "Review the implementation" in user:
                self.calls.append("reviser")
                return "1. Try a smaller block size to raise occupancy."
            if "Improve the latest" in user:
                self.calls.append("tuner")
                self.tuner_prompts.append(user)
                if self.failing_tuner_replies > 0:
                    self.failing_tuner_replies -= 1
                    return ("<old_str_1>\nthis line is in no kernel\n</old_str_1>\n"
                            "<new_str_1>\nnor is this one\n</new_str_1>\n")
                code = _latest_code(user)
                found = re.search(r"triton\.cdiv\(n, (\d+)\),\)\]\(x, y, n, BLOCK=\1\)", code)
                if not found:
                    return "I would not change anything."
                block, half = int(found.group(1)), max(int(found.group(1)) // 2, 16)
                return (f"<reasoning_1>Halve the block, grid and block together.</reasoning_1>\n"
                        f"<old_str_1>\n{found.group(0)}\n</old_str_1>\n"
                        f"<new_str_1>\n{found.group(0).replace(str(block), str(half))}\n"
                        f"</new_str_1>\n")
            self.calls.append("proposer")
            self.proposals += 1
            kind = self.proposals % 4
            if kind == 2:
                return f"Here is a kernel.\n```python\n{WRONG}```\n"
            if kind == 3:
                return "Sorry, I cannot write this kernel."
            return f"Here is a kernel.\n```python\n{GOOD}# proposal {self.proposals}\n```\n"


def start(script: Script) -> tuple[ThreadingHTTPServer, str]:
    return serve(script.handle)


if __name__ == "__main__":
    server, url = start(Script())
    Path(sys.argv[1]).write_text(url)
    threading.Event().wait()
