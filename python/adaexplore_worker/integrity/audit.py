"""Watching what candidate code does at runtime that no kernel needs: reading the harness's
frames, walking the garbage collector, running generated code, tracing. A Python audit hook
(sys.addaudithook: cannot be removed once installed) sees these events; an event counts when the
code that caused it is the candidate's own (its file, or code it built with exec/compile), with
the frames of stdlib helpers such as inspect and traceback looked through.
"""

from __future__ import annotations

import sys
from typing import Any

# Event -> the rule it falls under (rule names as in integrity.py).
_EVENTS = {
    "sys._getframe": "harness_access",
    "sys._current_frames": "harness_access",
    "gc.get_objects": "harness_access",
    "gc.get_referrers": "harness_access",
    "gc.get_referents": "harness_access",
    "sys.settrace": "harness_access",
    "sys.setprofile": "harness_access",
    "exec": "dynamic_code",
    "compile": "dynamic_code",
}
_FRAME_ATTRIBUTES = ("tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back")
_TRANSPARENT = ("/inspect.py", "/traceback.py", "/linecache.py", "/contextlib.py",
                "/threading.py", "/concurrent/futures/thread.py", "/concurrent/futures/_base.py",
                "/multiprocessing/pool.py")


class AuditWatch:
    """Installed once per evaluation child, before the candidate is imported."""

    def __init__(self, candidate_path: str) -> None:
        self.candidate_path = candidate_path
        self.findings: list[dict[str, Any]] = []
        self._inside = False
        sys.addaudithook(self._hook)
        self._watch_threads()

    def _watch_threads(self) -> None:
        """Starting a thread raises no audit event, so the low-level starters are wrapped (the
        identity guard, snapshotted after this, keeps the wrappers in place)."""
        import _thread
        import threading

        for owner in (_thread, threading):
            for name in ("start_new_thread", "start_joinable_thread", "_start_new_thread",
                         "_start_joinable_thread", "start_new"):
                original = getattr(owner, name, None)
                if callable(original):
                    setattr(owner, name, self._recording(original, name))

    def _recording(self, original: Any, name: str) -> Any:
        def start(*args: Any, **kwargs: Any) -> Any:
            self._attribute("threads", f"thread started ({name})")
            return original(*args, **kwargs)
        return start

    def _attribute(self, rule: str, text: str) -> None:
        """Records a finding when the first frame outside the transparent helpers (and this
        module) is the candidate's."""
        if self._inside:
            return
        self._inside = True
        try:
            frame = sys._getframe(1)
            while frame is not None and (frame.f_code.co_filename.endswith(_TRANSPARENT)
                                         or frame.f_code.co_filename == __file__):
                frame = frame.f_back
            if frame is not None and frame.f_code.co_filename == self.candidate_path:
                if not any(f["text"] == text for f in self.findings):
                    self.findings.append({"rule": rule, "line": frame.f_lineno, "text": text})
        finally:
            self._inside = False

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        if self._inside:
            return
        rule = _EVENTS.get(event)
        if rule is None and event == "object.__getattr__" and len(args) == 2:
            rule = "harness_access" if args[1] in _FRAME_ATTRIBUTES else None
        if rule is None:
            return
        self._inside = True
        try:
            frame = sys._getframe(1)
            while frame is not None and frame.f_code.co_filename.endswith(_TRANSPARENT):
                frame = frame.f_back
            if frame is None:
                return
            filename = frame.f_code.co_filename
            if filename == self.candidate_path or (filename == "<string>" and rule != "dynamic_code"):
                text = f"{event}" + (f" {args[1]}" if event == "object.__getattr__" else "")
                if not any(f["text"] == text for f in self.findings):
                    self.findings.append({"rule": rule, "line": frame.f_lineno, "text": text})
        finally:
            self._inside = False
