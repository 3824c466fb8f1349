"""The GPU as the zygote's children share it: a FIFO reader-writer lock over child ids.

Loading and correctness runs take it shared, timing takes it exclusively, so a timed run never
shares the device with another child's work. A waiting writer blocks later readers (timing is
never starved by a stream of loads). A shared holder can be paused (the zygote stops its
processes): it leaves the holders, so a waiting writer gets the lock, and is resumed as a holder
once no writer holds or waits. The zygote's loop is its only user; not thread-safe.
"""

from __future__ import annotations

from collections import deque


class GpuLock:
    """FIFO reader-writer lock over child ids. A waiting writer blocks later readers."""

    def __init__(self) -> None:
        self.shared: set[str] = set()
        self.exclusive: str | None = None
        self.queue: deque[tuple[str, str]] = deque()
        self.paused: set[str] = set()  # Shared holders taken out while writers go.

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

    def writer_waiting(self) -> str | None:
        """The writer that the shared holders keep waiting, if one does."""
        if self.exclusive is None and self.shared and self.queue and self.queue[0][1] == "exclusive":
            return self.queue[0][0]
        return None

    def pause(self, job_id: str) -> None:
        """Takes a shared holder out of the holders until resume_paused gives it back."""
        if job_id in self.shared:
            self.shared.discard(job_id)
            self.paused.add(job_id)

    def resume_paused(self) -> list[str]:
        """The paused holders, holders again, once no writer holds the lock or waits for it."""
        if not self.paused or self.exclusive is not None or any(
                mode == "exclusive" for _, mode in self.queue):
            return []
        resumed = sorted(self.paused)
        self.shared.update(resumed)
        self.paused.clear()
        return resumed

    def involved(self, job_id: str) -> bool:
        """Whether the child holds the lock (or is paused holding it) or waits for it: a
        request then is not the harness's (it asks once, and only when it holds nothing)."""
        return (job_id in self.shared or job_id in self.paused or self.exclusive == job_id
                or any(item[0] == job_id for item in self.queue))

    def release(self, job_id: str) -> None:
        self.shared.discard(job_id)
        self.paused.discard(job_id)
        if self.exclusive == job_id:
            self.exclusive = None
        self.queue = deque(item for item in self.queue if item[0] != job_id)
