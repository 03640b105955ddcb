"""Course builds: incremental, repairing, and whole-generation rebuilds when asked or when
the embedding model changed (the fake embedder stands in for the model)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from courserag.config.settings import Settings
from courserag.courses.directory import Course
from courserag.courses.indexer import build_course
from courserag.embedders import vector_space
from courserag.errors import EmbeddingSpaceError
from courserag.stores.local import LocalCourseStore


def _course(tmp_path) -> Course:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "syllabus.md").write_text("# Syllabus\n\n## Late policy\n\nLate work loses 10% a day.\n", encoding="utf-8")
    (docs / "notes.txt").write_text("The wombat burrow is under the library.\n", encoding="utf-8")
    return Course("c1", "Course", "desc", "en", docs)


def test_a_changed_embedding_model_re_embeds_everything_into_a_new_generation(tmp_path, fake_embedder):
    course = _course(tmp_path)
    old = Settings(data_dir=tmp_path, embedding_model="old-model")
    first = build_course(course, LocalCourseStore(tmp_path / "index", 8, "old-model"), fake_embedder, old)
    assert first.indexed == 2 and first.reason == ""

    new = replace(old, embedding_model="new-model")
    store = LocalCourseStore(tmp_path / "index", 8, "new-model")
    assert store.index_model("c1") == "old-model"
    second = build_course(course, store, fake_embedder, new)
    assert second.indexed == 2 and second.skipped == 0
    assert "old-model to new-model" in second.reason and "re-embedded every file" in second.text()
    assert store.index_model("c1") == "new-model" and store.count("c1") > 0
    third = build_course(course, store, fake_embedder, new)  # and incremental again afterwards
    assert third.skipped == 2 and third.indexed == 0


def test_an_index_of_e5_s_earlier_int8_recipe_is_re_embedded_and_searched_only_after(tmp_path, fake_embedder):
    """An index written before the int8 recipe was smoothed recorded the model alone; its
    vectors differ a little from today's, so it is another space: refused, then rebuilt."""
    course = _course(tmp_path)
    settings = Settings(data_dir=tmp_path)  # E5 + USE, int8
    earlier = LocalCourseStore(tmp_path / "index", 8, settings.embedding_model)
    build_course(course, earlier, fake_embedder, replace(settings, embedding_backend="onnx"))  # the model alone
    store = LocalCourseStore(tmp_path / "index", 8)  # today's default space
    with pytest.raises(EmbeddingSpaceError):
        store.vector_search("c1", np.zeros(8, np.float32), 3)
    rebuilt = build_course(course, store, fake_embedder, settings)
    assert rebuilt.indexed == 2 and "(E5 int8 r3)" in rebuilt.reason
    assert store.index_model("c1") == vector_space(settings.embedding_model, settings.embedding_backend)
    assert store.vector_search("c1", np.zeros(8, np.float32), 3)


def test_a_rebuild_keeps_the_old_index_until_it_is_done_and_a_failed_rebuild_changes_nothing(tmp_path, fake_embedder):
    course = _course(tmp_path)
    settings = Settings(data_dir=tmp_path, embedding_model="m")
    store = LocalCourseStore(tmp_path / "index", 8, "m")
    build_course(course, store, fake_embedder, settings)
    before = store.files("c1")
    for path in course.docs.iterdir():
        path.write_bytes(b"")  # every file now fails to parse
    summary = build_course(course, store, fake_embedder, settings, rebuild=True)
    assert summary.kept_previous and len(summary.failed) == 2
    assert store.files("c1") == before  # learners keep their answers


def test_an_unreadable_segment_is_repaired_by_the_next_build(tmp_path, fake_embedder):
    course = _course(tmp_path)
    settings = Settings(data_dir=tmp_path, embedding_model="m")
    store = LocalCourseStore(tmp_path / "index", 8, "m")
    build_course(course, store, fake_embedder, settings)
    manifest = json.loads((tmp_path / "index" / "c1" / "manifest.json").read_text())
    segment = tmp_path / "index" / "c1" / "segments" / manifest["files"]["notes.txt"]["segment"]
    segment.write_bytes(b"PK\x03\x04 not a whole archive")
    fresh = LocalCourseStore(tmp_path / "index", 8, "m")
    assert fresh.unreadable_files("c1") == frozenset({"notes.txt"})
    summary = build_course(course, fresh, fake_embedder, settings)
    assert summary.repaired == 1 and summary.indexed == 1 and summary.skipped == 1
    assert "1 repaired" in summary.text()
    assert LocalCourseStore(tmp_path / "index", 8, "m").unreadable_files("c1") == frozenset()
