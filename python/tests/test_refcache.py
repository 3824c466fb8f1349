"""The reference cache: the zygote's index (bound, eviction, replacement) and, with real worker
processes, reuse across jobs of one key, a changed file, and jobs of another key."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from conftest import Worker, kernel, task

from adaexplore_worker import refcache


def _file(folder: Path, name: str, size: int) -> tuple[str, str]:
    path = folder / name
    data = bytes(size)
    path.write_bytes(data)
    return str(path), hashlib.sha256(data).hexdigest()


def test_the_index_keeps_the_most_recently_used_within_its_bound(tmp_path: Path) -> None:
    cache = refcache.ReferenceCache(str(tmp_path / "refs"), max_bytes=250)
    folder = Path(cache.folder)
    for key in ("a", "b"):
        path, sha = _file(folder, f"{key}.pt", 100)
        assert cache.add(key, path, sha, 100)
    assert cache.lookup("a") is not None  # Now b is the least recently used.
    path_c, sha_c = _file(folder, "c.pt", 100)
    assert cache.add("c", path_c, sha_c, 100)
    assert set(cache.entries) == {"a", "c"}
    assert not (folder / "b.pt").exists()
    assert cache.total_bytes() == 200


def test_an_entry_larger_than_the_bound_is_not_kept(tmp_path: Path) -> None:
    cache = refcache.ReferenceCache(str(tmp_path / "refs"), max_bytes=50)
    path, sha = _file(Path(cache.folder), "big.pt", 100)
    assert not cache.add("big", path, sha, 100)
    assert cache.lookup("big") is None
    assert not Path(path).exists()


def test_a_new_entry_for_a_key_replaces_the_old_file(tmp_path: Path) -> None:
    cache = refcache.ReferenceCache(str(tmp_path / "refs"), max_bytes=1000)
    old, sha_old = _file(Path(cache.folder), "k-1.pt", 10)
    new, sha_new = _file(Path(cache.folder), "k-2.pt", 20)
    cache.add("k", old, sha_old, 10)
    cache.add("k", new, sha_new, 20)
    assert cache.lookup("k").path == new  # type: ignore[union-attr]
    assert not Path(old).exists()


def test_the_folder_starts_empty(tmp_path: Path) -> None:
    folder = tmp_path / "refs"
    folder.mkdir()
    (folder / "stale.pt").write_bytes(b"from an earlier worker")
    refcache.ReferenceCache(str(folder), max_bytes=1000)
    assert list(folder.iterdir()) == []


def test_a_file_whose_bytes_changed_is_not_read(tmp_path: Path) -> None:
    data = refcache.encode({"x": 1})
    path = tmp_path / "entry.pt"
    sha = refcache.write(str(path), data)
    plan = refcache.Plan(key="k", read_path=str(path), read_sha256=sha,
                         store_path=str(tmp_path / "next.pt"), max_bytes=1 << 20)
    payload, outcome = refcache.read(plan)
    assert outcome == "hit" and payload is not None and payload["x"] == 1
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    assert refcache.read(plan) == (None, "changed")
    path.unlink()
    assert refcache.read(plan) == (None, "changed")


@pytest.fixture(scope="module")
def cached_worker(tmp_path_factory: pytest.TempPathFactory):
    w = Worker(tmp_path_factory.mktemp("refcache"), reference_cache_mb=64)
    yield w
    w.close()


def _trial_figures(facts: dict) -> list:
    return [(t["seed"], t["distribution"], t["passed"],
             [o["values"]["max_abs_err"] for o in t["outputs"]]) for t in facts["trials"]]


def test_jobs_of_one_key_share_references_and_reach_the_same_facts(cached_worker: Worker) -> None:
    first = cached_worker.evaluate(task("gemm_relu"), kernel("gemm_relu", "ok"),
                                   reference_key="gemm-relu-1")
    second = cached_worker.evaluate(task("gemm_relu"), kernel("gemm_relu", "ok"),
                                    reference_key="gemm-relu-1")
    assert first["reference_cache"] == "stored"
    assert second["reference_cache"] == "hit"
    assert _trial_figures(first) == _trial_figures(second)
    for key in ("reference", "null_kernels", "roofline"):
        assert first[key] == second[key], key
    assert second["status"] == "ok" and "timing" in second
    assert not second.get("patched") and not second.get("runtime_findings"), second
    # A wrong kernel is still wrong against cached references.
    wrong = cached_worker.evaluate(task("relu"), kernel("relu", "wrong_values"),
                                   reference_key="relu-1")
    again = cached_worker.evaluate(task("relu"), kernel("relu", "wrong_values"),
                                   reference_key="relu-1")
    assert again["reference_cache"] == "hit"
    assert wrong["trials"][0]["passed"] is False and again["trials"][0]["passed"] is False


def test_a_changed_entry_is_made_again_and_no_key_uses_no_cache(cached_worker: Worker,
                                                                tmp_path: Path) -> None:
    cached_worker.evaluate(task("relu"), kernel("relu", "ok"), reference_key="relu-2")
    folder = Path(cached_worker.scratch) / "references"
    (entry,) = [p for p in folder.iterdir() if p.name.startswith("relu2")]
    entry.write_bytes(entry.read_bytes()[:-8] + bytes(8))  # What a candidate could do.
    facts = cached_worker.evaluate(task("relu"), kernel("relu", "ok"), reference_key="relu-2")
    assert facts["reference_cache"] == "changed"
    assert all(t["passed"] for t in facts["trials"])
    assert cached_worker.evaluate(task("relu"), kernel("relu", "ok"),
                                  reference_key="relu-2")["reference_cache"] == "hit"
    assert "reference_cache" not in cached_worker.evaluate(task("relu"), kernel("relu", "ok"))
