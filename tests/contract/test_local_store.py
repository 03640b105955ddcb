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


def _course(store, course="c1", sources=("a.md", "b.md")):
    from courserag.records import Chunk

    for i, source in enumerate(sources):
        texts = [f"{source} says the wombat burrow {i} is under the library"]
        chunks = [Chunk.make(t, source, "lines 1-1", "course", course_id=course) for t in texts]
        vectors = np.eye(store.dim, dtype=np.float32)[i : i + 1]
        store.replace_file(course, source, f"hash-{source}", chunks, vectors)


def test_an_index_of_another_embedding_model_is_refused_with_the_command_to_run(tmp_path):
    from courserag.errors import EmbeddingSpaceError

    _course(LocalCourseStore(tmp_path, 8, "all-MiniLM-L6-v2"))
    other = LocalCourseStore(tmp_path, 8, "multilingual-e5-small")
    assert other.index_model("c1") == "all-MiniLM-L6-v2"
    with pytest.raises(EmbeddingSpaceError) as caught:
        other.vector_search("c1", np.ones(8, dtype=np.float32), 3)
    assert "python build_weaviate_index.py --course c1" in str(caught.value)
    assert "re-embed" in str(caught.value) and "重新建立索引" in caught.value.say("zh")
    with pytest.raises(EmbeddingSpaceError):
        other.replace_file("c1", "c.md", "h", [], np.zeros((0, 8), dtype=np.float32))


def test_a_damaged_segment_is_skipped_with_a_notice_and_reported(tmp_path):
    store = LocalCourseStore(tmp_path, 8)
    _course(store)
    manifest = json.loads((tmp_path / "c1" / "manifest.json").read_text())
    segment = tmp_path / "c1" / "segments" / manifest["files"]["a.md"]["segment"]
    segment.write_bytes(segment.read_bytes()[:40])  # truncated, as by a crash or a full disk
    fresh = LocalCourseStore(tmp_path, 8)
    hits = fresh.search("c1", np.eye(8, dtype=np.float32)[1], ["wombat"], 5)
    assert {h.chunk.source for h in hits.vector + hits.lexical} == {"b.md"}
    assert [n.code for n in hits.notices] == ["index_damaged"] and "a.md" in str(hits.notices[0])
    assert fresh.unreadable_files("c1") == frozenset({"a.md"})


def test_a_local_rebuild_serves_the_previous_version_whole_until_it_is_committed(tmp_path):
    store = LocalCourseStore(tmp_path, 8)
    _course(store)
    stage = store.stage("c1")
    from courserag.records import Chunk

    chunk = Chunk.make("the new text", "a.md", "lines 1-1", "course", course_id="c1")
    stage.put("a.md", "new-hash", [chunk], np.eye(8, dtype=np.float32)[3:4])
    # Killed here: nothing of the new generation is visible, the old one answers whole.
    assert {s: r.file_hash for s, r in LocalCourseStore(tmp_path, 8).files("c1").items()} == {
        "a.md": "hash-a.md",
        "b.md": "hash-b.md",
    }
    assert LocalCourseStore(tmp_path, 8).count("c1") == 2
    stage.abort()
    assert len(list((tmp_path / "c1" / "segments").glob("*.npz"))) == 2
