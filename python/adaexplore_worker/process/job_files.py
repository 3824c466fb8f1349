"""A job's files in the worker's scratch folder, and the candidate's compiler cache.

    scratch/jobs/<job>/            the task, the candidate, stdout.txt, stderr.txt, tmp/ (removed
                                   when the job ends; the only folder the candidate writes besides
                                   its cache)
    scratch/roots/<job>/           the empty mount point of the job's sandbox root
    scratch/candidate-cache/<sha>/ Triton's, Inductor's, CUDA's and torch extensions' caches for
                                   one candidate source: the same kernel judged again (another
                                   workload of a definition, a re-run) compiles once, and no
                                   candidate ever loads what another one compiled

The zygote's loop is the only user; not thread-safe.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import shutil
import sys
from dataclasses import dataclass

from ..protocol.job import Job

OUTPUT_TAIL_BYTES = 16_000
CANDIDATE_CACHES_KEPT = 32  # The least recently used beyond this many are removed.
CANDIDATE_CACHE_MAX_BYTES = 512 << 20  # A larger one is removed when its job ends.
CACHE_VARIABLES = {"TRITON_CACHE_DIR": "triton", "TORCHINDUCTOR_CACHE_DIR": "inductor",
                   "CUDA_CACHE_PATH": "nv", "XDG_CACHE_HOME": "xdg",
                   "TORCH_EXTENSIONS_DIR": "torch_extensions"}


@dataclass
class JobFiles:
    job_dir: str
    task_path: str
    candidate_path: str
    root: str
    cache_dir: str

    def cache_environment(self) -> dict[str, str]:
        return {name: os.path.join(self.cache_dir, sub) for name, sub in CACHE_VARIABLES.items()}


def for_job(scratch: str, job: Job) -> JobFiles:
    # A baseline has no candidate: its compile caches are its task's, so baselines of several
    # tasks at once never share one (torch.compile failed on a folder two of them wrote).
    return prepare(scratch, job.id, job.candidate.source, job.task.source,
                   job.task.filename or "task.py", job.candidate.filename or "candidate.py",
                   cache_key=job.task.source if job.options.baseline else None)


def prepare(scratch: str, job_id: str, candidate: str, task: str, task_name: str = "task.py",
            candidate_name: str = "candidate.py", cache_key: str | None = None) -> JobFiles:
    """`cache_key`: what names its compile caches (default: the candidate's source)."""
    job_dir = os.path.join(scratch, "jobs", safe_name(job_id))
    root = os.path.join(scratch, "roots", safe_name(job_id))
    for path in (job_dir, root):
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
    task_path = os.path.join(job_dir, safe_file(task_name))
    candidate_path = os.path.join(job_dir, "candidate_" + safe_file(candidate_name))
    with open(task_path, "w", encoding="utf-8") as f:
        f.write(task)
    with open(candidate_path, "w", encoding="utf-8") as f:
        f.write(candidate)
    keyed = candidate if cache_key is None else "baseline:" + cache_key
    digest = hashlib.sha256(keyed.encode("utf-8", "surrogatepass")).hexdigest()
    cache_dir = os.path.join(scratch, "candidate-cache", digest[:24])
    os.makedirs(cache_dir, exist_ok=True)
    os.utime(cache_dir)  # Most recently used.
    files = JobFiles(job_dir, task_path, candidate_path, root, cache_dir)
    for path in files.cache_environment().values():
        os.makedirs(path, exist_ok=True)
    return files


def finish(files: JobFiles, in_use: set[str]) -> None:
    """Removes the job's folders, its cache if it grew too large, and the least recently used
    caches beyond CANDIDATE_CACHES_KEPT (not those of jobs still running: `in_use`)."""
    shutil.rmtree(files.job_dir, ignore_errors=True)
    shutil.rmtree(files.root, ignore_errors=True)
    if files.cache_dir not in in_use and _size(files.cache_dir) > CANDIDATE_CACHE_MAX_BYTES:
        shutil.rmtree(files.cache_dir, ignore_errors=True)
    parent = os.path.dirname(files.cache_dir)
    try:
        caches = [os.path.join(parent, name) for name in os.listdir(parent)]
    except OSError:
        return
    caches.sort(key=lambda p: os.stat(p).st_mtime if os.path.exists(p) else 0, reverse=True)
    for path in caches[CANDIDATE_CACHES_KEPT:]:
        if path not in in_use:
            shutil.rmtree(path, ignore_errors=True)


def readable_paths() -> list[str]:
    """What every candidate reads besides the system folders: the Python installation, this
    worker's package, the packages on its path, the loader's path and CUDA's home. Of those, not the current folder, the home
    folder or a temporary folder as a whole: the user's files are there."""
    home = os.path.realpath(os.path.expanduser("~"))
    never = {"/", home, os.path.realpath(os.getcwd()), "/tmp", "/root", "/home"}
    always = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
              os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))]
    on_path = [p for p in sys.path if p and os.path.isabs(p)]
    # Where the loader and the compilers look beyond the system folders (a CUDA or a driver
    # installed elsewhere).
    for variable in ("LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "TRITON_LIBCUDA_PATH"):
        on_path += [p for p in os.environ.get(variable, "").split(":") if os.path.isabs(p)]
    out: list[str] = []
    for path in always + [p for p in on_path if os.path.realpath(p) not in never]:
        real = os.path.realpath(path)
        if os.path.exists(real) and real not in out:
            out.append(real)
    return out


def tail(folder: str, name: str) -> str:
    """The end of `name` in `folder`, a folder the candidate writes: read only if it is a plain
    file there, never through a link it left in its place (to a host file), never a pipe or a
    device (which would block the reader)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return ""
    try:
        fd = os.open(name, flags, dir_fd=folder_fd)
    except OSError as e:
        return (f"[{name} was replaced by a symbolic link: not read]"
                if e.errno == errno.ELOOP else "")
    finally:
        os.close(folder_fd)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return f"[{name} is not a plain file]"
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - OUTPUT_TAIL_BYTES))
        data = f.read(OUTPUT_TAIL_BYTES)
    text = data.decode("utf-8", errors="replace")
    return ("[... earlier output dropped ...]\n" + text) if size > OUTPUT_TAIL_BYTES else text


def safe_name(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in text)[:80] or "job"


def safe_file(name: str) -> str:
    """A safe file name keeping a .json suffix (FlashInfer-Trace definitions and Solutions);
    anything else becomes .py."""
    base = os.path.basename(name)
    suffix = ".json" if base.endswith(".json") else ".py"
    stem = safe_name(base[:-len(suffix)] if base.endswith(suffix) else base)
    return stem + suffix


def _size(path: str) -> int:
    total = 0
    for folder, _, names in os.walk(path):
        for name in names:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
    return total
