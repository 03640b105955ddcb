"""Local-store specifics (the shared behaviour is in test_store_contract.py)."""

import json
import os

import numpy as np
import pytest

from courserag.errors import StoreUnavailableError
from courserag.records import Chunk
from courserag.stores.local import LocalCourseStore


def vectors(n, dim=384, seed=0):
    v = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def chunks(course, source, texts):
    return [Chunk.make(t, source, f"page {i + 1}", "course", course) for i, t in enumerate(texts)]


def test_survives_restart(tmp_path):
    store = LocalCourseStore(tmp_path)
    store.replace_file("c1", "a.md", "h1", chunks("c1", "a.md", ["hash tables", "trees"]), vectors(2))
    reopened = LocalCourseStore(tmp_path)
    assert reopened.count("c1") == 2
    assert reopened.lexical_search("c1", ["trees"], 5)[0].chunk.text == "trees"


def test_running_reader_sees_a_rebuild_by_another_writer(tmp_path):
    reader = LocalCourseStore(tmp_path)
    writer = LocalCourseStore(tmp_path)
    writer.replace_file("c1", "a.md", "h1", chunks("c1", "a.md", ["old text"]), vectors(1))
    assert reader.lexical_search("c1", ["old"], 5)
    writer.replace_file("c1", "a.md", "h2", chunks("c1", "a.md", ["new text"]), vectors(1, seed=1))
    assert reader.lexical_search("c1", ["old"], 5) == []
    assert reader.lexical_search("c1", ["new"], 5)


def test_crash_before_manifest_swap_keeps_previous_index(tmp_path, monkeypatch):
    store = LocalCourseStore(tmp_path)
    store.replace_file("c1", "a.md", "h1", chunks("c1", "a.md", ["first version"]), vectors(1))

    def crash(*args, **kwargs):
        raise KeyboardInterrupt("killed")

    monkeypatch.setattr(store, "_write_manifest", crash)
    with pytest.raises(KeyboardInterrupt):
        store.replace_file("c1", "a.md", "h2", chunks("c1", "a.md", ["second version"]), vectors(1, seed=3))
    fresh = LocalCourseStore(tmp_path)
    assert fresh.files("c1")["a.md"].file_hash == "h1"
    assert fresh.lexical_search("c1", ["first"], 5)[0].chunk.text == "first version"



def test_disk_full_gives_clear_error_and_keeps_index(tmp_path, monkeypatch):
    store = LocalCourseStore(tmp_path)
    store.replace_file("c1", "a.md", "h1", chunks("c1", "a.md", ["kept"]), vectors(1))
    import courserag.stores.local as local_module

    real_fdopen = os.fdopen

    class FullDisk:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(local_module.os, "fdopen", lambda fd, mode: FullDisk(real_fdopen(fd, mode)))
    with pytest.raises(StoreUnavailableError, match="No space left"):
        store.replace_file("c1", "a.md", "h2", chunks("c1", "a.md", ["lost"]), vectors(1))
    monkeypatch.setattr(local_module.os, "fdopen", real_fdopen)
    assert LocalCourseStore(tmp_path).lexical_search("c1", ["kept"], 5)
    assert not list(tmp_path.rglob("*.tmp"))


def test_damaged_manifest_is_a_clear_error(tmp_path):
    store = LocalCourseStore(tmp_path)
    (tmp_path / "c1").mkdir()
    (tmp_path / "c1" / "manifest.json").write_text("{broken", encoding="utf-8")
    with pytest.raises(StoreUnavailableError, match="cannot be read"):
        store.files("c1")


@pytest.mark.parametrize("bad", ["../etc", "a/b", "", ".hidden"])
def test_course_ids_cannot_escape_the_root(tmp_path, bad):
    with pytest.raises(ValueError, match="course id"):
        LocalCourseStore(tmp_path).files(bad)


def test_manifest_is_plain_json(tmp_path):
    store = LocalCourseStore(tmp_path)
    store.replace_file("c1", "a.md", "h1", chunks("c1", "a.md", ["x"]), vectors(1))
    manifest = json.loads((tmp_path / "c1" / "manifest.json").read_text())
    assert manifest["files"]["a.md"]["chunks"] == 1
