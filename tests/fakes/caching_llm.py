"""A loopback LLM server speaking both providers' wire formats (OpenAI Chat Completions at
/v1/chat/completions, Anthropic Messages at /v1/messages) and accounting for their prompt caches
as each provider documents them, so that tests and benchmarks see what a real bill would show:

- Anthropic: a content block carrying `cache_control` ends a cacheable prefix (everything sent
  before it, the system prompt included). A prefix of at least `min_cached` tokens that was
  written within the cache's lifetime (5 minutes, refreshed by each read) is read from the cache
  (`cache_read_input_tokens`); a longer marked prefix is written (`cache_creation_input_tokens`);
  `input_tokens` is the rest.
- OpenAI: no marks; a prompt of at least `min_cached` tokens has its longest prefix in common with
  an earlier prompt served from the cache, in steps of 128 tokens
  (`prompt_tokens_details.cached_tokens`, part of `prompt_tokens`).

Tokens are counted as ceil(UTF-8 bytes / 4), a stand-in for the providers' tokenisers (the same
for both, so their ratios hold). `reply(body)` gets the request flattened to
{"model", "messages": [{"role", "content": str}]} and returns the reply's text. Stdlib only.

    server = CachingLlm(lambda body: "hello")
    base = server.url           # OPENAI_BASE_URL = base + "/v1", ANTHROPIC_BASE_URL = base
    ...
    server.close()
"""

from __future__ import annotations

import json
import math
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

CACHE_LIFETIME_S = 300.0
OPENAI_STEP = 128


def tokens(text: str) -> int:
    return math.ceil(len(text.encode()) / 4)


def _blocks(content: Any) -> list[dict[str, Any]]:
    """A message's content as text blocks (a plain string is one block with no mark)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict) and b.get("type") == "text"]


class CachingLlm:
    def __init__(self, reply: Callable[[dict[str, Any]], str], min_cached: int = 1024,
                 output_tokens: int = 200) -> None:
        self.reply, self.min_cached, self.output_tokens = reply, min_cached, output_tokens
        self.lock = threading.Lock()
        self.anthropic_cache: dict[str, float] = {}  # Prefix text -> when it lapses.
        self.openai_prompts: list[str] = []
        self.requests: list[dict[str, Any]] = []  # Every request body, in order.
        self.usages: list[dict[str, Any]] = []    # Every usage object sent, in order.
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path.endswith("/messages"):
                    data = server._anthropic(body)
                else:
                    data = server._openai(body)
                raw = json.dumps(data).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _anthropic(self, body: dict[str, Any]) -> dict[str, Any]:
        system = body.get("system", "")
        blocks = _blocks(system) if system else []
        flat = [{"role": "system", "content": "".join(b["text"] for b in blocks)}] if blocks else []
        for message in body["messages"]:
            parts = _blocks(message["content"])
            flat.append({"role": message["role"], "content": "".join(b["text"] for b in parts)})
            blocks += parts
        text, marks = "", []  # The prefixes that end at a marked block.
        for block in blocks:
            text += block["text"]
            if "cache_control" in block:
                marks.append(text)
        now = time.monotonic()
        read = written = 0
        with self.lock:
            self.requests.append(body)
            for prefix in reversed(marks):  # The longest marked prefix still cached is read.
                if self.anthropic_cache.get(prefix, 0) > now:
                    read = tokens(prefix)
                    self.anthropic_cache[prefix] = now + CACHE_LIFETIME_S
                    break
            if marks and tokens(marks[-1]) >= self.min_cached and tokens(marks[-1]) > read:
                written = tokens(marks[-1]) - read
                self.anthropic_cache[marks[-1]] = now + CACHE_LIFETIME_S
            usage = {"input_tokens": tokens(text) - read - written,
                     "cache_creation_input_tokens": written, "cache_read_input_tokens": read,
                     "output_tokens": self.output_tokens}
            self.usages.append(usage)
        return {"type": "message", "role": "assistant", "model": body["model"],
                "content": [{"type": "text",
                             "text": self.reply({"model": body["model"], "messages": flat})}],
                "stop_reason": "end_turn", "usage": usage}

    def _openai(self, body: dict[str, Any]) -> dict[str, Any]:
        text = "".join(f"{m['role']}\n{m['content']}\n" for m in body["messages"])
        with self.lock:
            self.requests.append(body)
            common = max((_common_prefix(text, p) for p in self.openai_prompts), default=0)
            self.openai_prompts.append(text)
            cached = tokens(text[:common]) // OPENAI_STEP * OPENAI_STEP
            cached = cached if tokens(text) >= self.min_cached and cached >= self.min_cached else 0
            usage = {"prompt_tokens": tokens(text), "completion_tokens": self.output_tokens,
                     "prompt_tokens_details": {"cached_tokens": cached}}
            self.usages.append(usage)
        return {"model": body["model"],
                "choices": [{"message": {"content": self.reply(body)}, "finish_reason": "stop"}],
                "usage": usage}


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i
