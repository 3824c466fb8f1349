"""The read-only file system, applied in a forked process as the zygote applies it."""

import os
from pathlib import Path

import pytest

from adaexplore_worker import containment


def test_off_is_said_with_the_reason(tmp_path: Path) -> None:
    facts = containment.apply(False, str(tmp_path))
    assert facts["read_only_fs"] is False and "--writable-fs" in facts["read_only_fs_reason"]


@pytest.mark.skipif(os.geteuid() != 0, reason="a mount namespace needs root")
def test_only_the_scratch_folder_and_the_caches_stay_writable(tmp_path: Path,
                                                              monkeypatch) -> None:
    scratch, cache, outside = tmp_path / "scratch", tmp_path / "cache", tmp_path / "outside"
    monkeypatch.setenv("TRITON_CACHE_DIR", str(cache))
    monkeypatch.setenv("FLASHINFER_WORKSPACE_BASE", str(outside / "home"))
    (outside / "home").mkdir(parents=True)  # Exists: a write there fails as read-only, not absent.
    monkeypatch.syspath_prepend(str(Path(__file__).parent / "fake_flashinfer"))  # Importable.
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # The namespace is this process's; the test's own stays as it was.
        facts = containment.apply(True, str(scratch))
        wrote = []
        kernels = outside / "home" / ".cache" / "flashinfer" / "c"
        for path in (scratch / "a", cache / "b", kernels, outside / "home" / "d",
                     Path("/dev/shm") / f"adx-{os.getpid()}"):
            try:
                path.write_text("x")
                wrote.append(path.name)
                if path.parent == Path("/dev/shm"):
                    path.unlink()
            except OSError:
                pass
        os.write(write, f"{facts['read_only_fs']} {' '.join(wrote)}".encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    answer = os.read(read, 4096).decode().split()
    assert answer[0] == "True"
    assert answer[1:4] == ["a", "b", "c"] and "d" not in answer and len(answer) == 5
    (tmp_path / "after").write_text("y")  # Outside the child, nothing changed.
