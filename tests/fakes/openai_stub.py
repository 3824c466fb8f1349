"""A minimal OpenAI-compatible chat-completions server on loopback, for the end-to-end tests and
the GPU benchmarks: every POST is answered with the text `reply(path, headers, body)` returns
(`body` is the parsed request), status 200, and fixed token usage. Stdlib only, so it also runs
under the GPU machine's Python.

    httpd, url = serve(lambda path, headers, body: "hello")   # url ends in /v1
    ...
    httpd.shutdown(); httpd.server_close()
"""

from __future__ import annotations

import json
import threading
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Reply = Callable[[str, Message, dict[str, Any]], str]


class Refuse(Exception):
    """Raised by a reply function: the request is answered with this HTTP status instead (a 503
    of an overloaded server, say), with Retry-After when given."""

    def __init__(self, status: int, retry_after_s: float | None = None) -> None:
        super().__init__(status)
        self.status, self.retry_after_s = status, retry_after_s


def serve(reply: Reply, prompt_tokens: int = 1000,
          completion_tokens: int = 200) -> tuple[ThreadingHTTPServer, str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            try:
                text = reply(self.path, self.headers, body)
            except Refuse as refusal:
                error = json.dumps({"error": {"message": f"refused: {refusal.status}"}}).encode()
                self.send_response(refusal.status)
                if refusal.retry_after_s is not None:
                    self.send_header("Retry-After", f"{refusal.retry_after_s:g}")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(error)))
                self.end_headers()
                self.wfile.write(error)
                return
            data = json.dumps({"model": body["model"],
                               "choices": [{"message": {"content": text},
                                            "finish_reason": "stop"}],
                               "usage": {"prompt_tokens": prompt_tokens,
                                         "completion_tokens": completion_tokens}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/v1"
