"""The GPU as the zygote's children share it: a FIFO reader-writer lock over child ids.

Loading and correctness runs take it shared, timing takes it exclusively, so a timed run never
shares the device with another child's work. A waiting writer blocks later readers (timing is
never starved by a stream of loads). The zygote's loop is its only user; not thread-safe.
"""

from __future__ import annotations

from collections import deque


class GpuLock:
    """FIFO reader-writer lock over child ids. A waiting writer blocks later readers."""

    def __init__(self) -> None:
        self.shared: set[str] = set()
        self.exclusive: str | None = None
        self.queue: deque[tuple[str, str]] = deque()

    def request(self, job_id: str, mode: str) -> None:
        self.queue.append((job_id, mode))

    def grant(self) -> list[tuple[str, str]]:
        granted: list[tuple[str, str]] = []
        while self.queue:
            job_id, mode = self.queue[0]
            if self.exclusive is not None:
                break
            if mode == "shared":
                self.shared.add(job_id)
            elif not self.shared:
                self.exclusive = job_id
            else:
                break
            self.queue.popleft()
            granted.append((job_id, mode))
        return granted

    def release(self, job_id: str) -> None:
        self.shared.discard(job_id)
        if self.exclusive == job_id:
            self.exclusive = None
        self.queue = deque(item for item in self.queue if item[0] != job_id)
