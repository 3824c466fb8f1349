"""The file system a candidate sees: read-only outside its job folder and the caches, where the
machine allows it. Applied once in the zygote, before it forks any child: the zygote moves into
its own mount namespace (root, or CAP_SYS_ADMIN) and remounts every mount read-only except the
worker's scratch folder (job folders, the reference cache), the compiler caches (FlashInfer's
kernel cache among them: the expert baseline compiles there), and /proc, /sys and /dev. Nothing changes outside the namespace: the mounts are made private first.

`apply` never raises: where the namespace cannot be made (no privilege, no mount syscall) the
file system stays writable and the returned facts say why. Every result carries those facts, so
a user knows which protections were in force for it.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import re
from typing import Any

CLONE_NEWNS = 0x00020000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
KERNEL_FILE_SYSTEMS = ("/proc", "/sys", "/dev")  # Devices (the GPU's among them) and the kernel's.
CACHE_VARIABLES = ("TRITON_CACHE_DIR", "TORCHINDUCTOR_CACHE_DIR", "CUDA_CACHE_PATH",
                   "XDG_CACHE_HOME")


def apply(read_only: bool, scratch: str) -> dict[str, Any]:
    """The protections in force for every candidate this worker runs."""
    facts: dict[str, Any] = {"process_tree": "subreaper, killed at the end of the evaluation",
                             "home": "the job folder", "read_only_fs": False}
    if not read_only:
        facts["read_only_fs_reason"] = "off (--writable-fs)"
        return facts
    writable = _writable(scratch)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        _check(libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
        _mount(libc, None, "/", MS_REC | MS_PRIVATE)  # Nothing below propagates to the host.
        for path in writable:
            _mount(libc, path, path, MS_BIND | MS_REC)
        failed = []
        for point, flags in _mounts():
            if _under(point, writable) or _under(point, KERNEL_FILE_SYSTEMS):
                continue
            try:
                _mount(libc, None, point, MS_REMOUNT | MS_BIND | MS_RDONLY | flags)
            except OSError as e:
                failed.append(f"{point} ({e.strerror})")
    except (OSError, AttributeError) as e:
        facts["read_only_fs_reason"] = f"not possible here: {e}"
        return facts
    facts["read_only_fs"] = not failed
    facts["writable"] = writable
    if failed:
        facts["read_only_fs_reason"] = "still writable: " + ", ".join(failed[:5])
    return facts


def _writable(scratch: str) -> list[str]:
    paths = [scratch] + [os.environ[v] for v in CACHE_VARIABLES if os.environ.get(v)]
    base = os.environ.get("FLASHINFER_WORKSPACE_BASE")
    if base and importlib.util.find_spec("flashinfer") is not None:  # Its layout below its base.
        paths.append(os.path.join(base, ".cache", "flashinfer"))
    found = []
    for path in paths:
        real = os.path.realpath(path)
        os.makedirs(real, exist_ok=True)
        if real not in found:
            found.append(real)
    return found


def _under(path: str, roots: list[str] | tuple[str, ...]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _mounts() -> list[tuple[str, int]]:
    """Every mount point with the flags a remount must keep (nosuid, nodev, noexec)."""
    out = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
        for line in f:
            fields = line.split()
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            options = fields[5].split(",")
            flags = ((MS_NOSUID if "nosuid" in options else 0)
                     | (MS_NODEV if "nodev" in options else 0)
                     | (MS_NOEXEC if "noexec" in options else 0))
            out.append((point, flags))
    return out


def _mount(libc: Any, source: str | None, target: str, flags: int) -> None:
    def encode(text: str | None) -> bytes | None:
        return None if text is None else os.fsencode(text)
    _check(libc.mount(encode(source), encode(target), None, ctypes.c_ulong(flags), None),
           f"mount {target}")


def _check(code: int, what: str) -> None:
    if code != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")
