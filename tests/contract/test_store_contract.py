"""One contract, every CourseStore: the same tests run against the local store and the
Weaviate store (the real client against the fake server in tests/weaviate_server).

Only the CourseStore Protocol is used here; a store-specific behaviour belongs in that
store's own test module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

from courserag.lang.textnorm import word_tokens
from courserag.records import Chunk
from courserag.stores.base import CourseStore, FileRecord, StoreHealth
from tests.weaviate_server import start_server

DIM = 384


@dataclass
class Backend:
    store: CourseStore
    reopen: Callable[[], CourseStore]  # a new store instance on the same data


@pytest.fixture(params=["local", "weaviate"])
def backend(request, tmp_path, monkeypatch):
    monkeypatch.delenv("WEAVIATE_API_KEY", raising=False)
    if request.param == "local":
        from courserag.stores.local import LocalCourseStore

        root = tmp_path / "index"
        yield Backend(LocalCourseStore(root, DIM), lambda: LocalCourseStore(root, DIM))
        return
    from courserag.stores.weaviate import WeaviateConfig, WeaviateCourseStore

    server = start_server(autoschema=False)
    config = WeaviateConfig(url=server.url, grpc_url=server.grpc_url, timeout_s=2.0)
    opened: list[WeaviateCourseStore] = []

    def open_store() -> WeaviateCourseStore:
        opened.append(WeaviateCourseStore(config, DIM))
        return opened[-1]

    try:
        yield Backend(open_store(), open_store)
    finally:
        for store in opened:
            store.close()
        server.stop()


@pytest.fixture
def store(backend) -> CourseStore:
    return backend.store


def unit_vectors(n: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def chunks_for(course: str, source: str, texts: list[str], file_hash: str) -> list[Chunk]:
    return [
        Chunk.make(text, source, f"page {i + 1}", "course", course_id=course, doc_type="pdf", file_hash=file_hash)
        for i, text in enumerate(texts)
    ]


WEEK1 = [
    "Course overview: grading is 40% homework and 60% exams.",
    "Asymptotic analysis uses Big-O notation for running time.",
    "Sorting algorithms: merge sort and quick sort run in n log n time on average.",
    "Quick sort picks a pivot; quick sort is in place.",
]
WEEK2 = [
    "Hash tables map keys to buckets with a hash function.",
    "哈希表通过哈希函数把键映射到桶。",
]


def index(store: CourseStore, course: str, source: str, texts: list[str], file_hash: str, seed: int):
    chunks = chunks_for(course, source, texts, file_hash)
    vectors = unit_vectors(len(texts), seed)
    store.replace_file(course, source, file_hash, chunks, vectors)
    return chunks, vectors


def test_a_new_store_is_empty_and_healthy(store):
    assert isinstance(store, CourseStore)
    assert store.files("csc3100") == {}
    assert store.count("csc3100") == 0
    assert store.vector_search("csc3100", unit_vectors(1, 0)[0], 5) == []
    assert store.lexical_search("csc3100", ["sort"], 5) == []
    health = store.health()
    assert isinstance(health, StoreHealth) and health.ok and health.name == store.name


def test_replace_lists_files_with_hash_and_count(store):
    index(store, "csc3100", "week1/slides.pdf", WEEK1, "sha-1", 1)
    index(store, "csc3100", "week2.md", WEEK2, "sha-2", 2)
    assert store.files("csc3100") == {
        "week1/slides.pdf": FileRecord("week1/slides.pdf", "sha-1", 4),
        "week2.md": FileRecord("week2.md", "sha-2", 2),
    }
    assert store.count("csc3100") == 6


def test_vector_search_ranks_by_cosine(store):
    chunks, vectors = index(store, "csc3100", "week1/slides.pdf", WEEK1, "sha-1", 3)
    query = 0.9 * vectors[2] + 0.1 * vectors[0]
    query /= np.linalg.norm(query)
    results = store.vector_search("csc3100", query, 3)
    expected = np.argsort(-(vectors @ query))[:3]
    assert [r.chunk.id for r in results] == [chunks[i].id for i in expected]
    # The local store keeps its vectors in half precision (chunk_index.py): ~1e-4 off.
    assert [r.vector for r in results] == pytest.approx([float(vectors[i] @ query) for i in expected], abs=5e-4)
    assert all(r.store == store.name for r in results)
    assert results[0].chunk == chunks[2]
    assert len(store.vector_search("csc3100", query, 10)) == 4
    assert store.vector_search("csc3100", query, 0) == []


def test_lexical_search_ranks_by_bm25(store):
    chunks, _ = index(store, "csc3100", "week1/slides.pdf", WEEK1, "sha-1", 4)
    index(store, "csc3100", "week2.md", WEEK2, "sha-2", 5)
    results = store.lexical_search("csc3100", word_tokens("quick sort pivot"), 3)
    assert results[0].chunk.id == chunks[3].id  # "quick sort" twice and "pivot"
    assert results[1].chunk.id == chunks[2].id
    scores = [r.lexical for r in results]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
    chinese = store.lexical_search("csc3100", word_tokens("哈希函数"), 3)
    assert chinese and chinese[0].chunk.text == WEEK2[1]
    assert store.lexical_search("csc3100", ["photosynthesis"], 3) == []
    assert all(r.store == store.name for r in results)


def test_courses_are_isolated(store):
    # Same files, same text, same vectors in two courses.
    a, vectors = index(store, "csc3100", "week1/slides.pdf", WEEK1, "sha-1", 6)
    b, _ = index(store, "mat2040", "week1/slides.pdf", WEEK1, "sha-1", 6)
    index(store, "mat2040", "extra.md", ["Eigenvalues and eigenvectors of a matrix."], "sha-x", 7)
    for course, own in (("csc3100", a), ("mat2040", b)):
        own_ids = {c.id for c in own}
        hits = store.vector_search(course, vectors[0], 10) + store.lexical_search(course, word_tokens("quick sort"), 10)
        assert hits and all(h.chunk.course_id == course for h in hits)
        assert own_ids & {h.chunk.id for h in hits}
    assert store.lexical_search("csc3100", ["eigenvalues"], 5) == []
    assert store.count("csc3100") == 4 and store.count("mat2040") == 5
    assert set(store.files("csc3100")) == {"week1/slides.pdf"}


def test_replace_drops_the_previous_version(store):
    index(store, "csc3100", "week1/slides.pdf", WEEK1, "sha-1", 8)
    new, vectors = index(store, "csc3100", "week1/slides.pdf", ["Revised: only one slide about heaps."], "sha-1b", 9)
    assert store.files("csc3100") == {"week1/slides.pdf": FileRecord("week1/slides.pdf", "sha-1b", 1)}
    assert store.count("csc3100") == 1
    assert [r.chunk.id for r in store.vector_search("csc3100", vectors[0], 10)] == [new[0].id]
    assert store.lexical_search("csc3100", ["pivot"], 5) == []


def test_replacing_with_the_same_content_changes_nothing(store):
    chunks, vectors = index(store, "csc3100", "week1/slides.pdf", WEEK1, "sha-1", 10)
    store.replace_file("csc3100", "week1/slides.pdf", "sha-1", chunks, vectors)
    assert store.count("csc3100") == 4
    assert store.files("csc3100")["week1/slides.pdf"] == FileRecord("week1/slides.pdf", "sha-1", 4)


def test_delete_file(store):
    index(store, "csc3100", "week1/slides.pdf", WEEK1, "sha-1", 11)
    _, vectors = index(store, "csc3100", "week2.md", WEEK2, "sha-2", 12)
    store.delete_file("csc3100", "week1/slides.pdf")
    store.delete_file("csc3100", "never-indexed.pdf")
    assert set(store.files("csc3100")) == {"week2.md"}
    assert store.count("csc3100") == 2
    assert {r.chunk.source for r in store.vector_search("csc3100", vectors[0], 10)} == {"week2.md"}


def test_delete_course(store):
    index(store, "csc3100", "week1/slides.pdf", WEEK1, "sha-1", 13)
    index(store, "mat2040", "week1/slides.pdf", WEEK1, "sha-1", 13)
    store.delete_course("csc3100")
    store.delete_course("never-indexed")
    assert store.files("csc3100") == {} and store.count("csc3100") == 0
    assert store.vector_search("csc3100", unit_vectors(1, 13)[0], 5) == []
    assert store.count("mat2040") == 4


def test_data_persists_across_store_instances(backend):
    chunks, vectors = index(backend.store, "csc3100", "week1/slides.pdf", WEEK1, "sha-1", 14)
    again = backend.reopen()
    assert again.files("csc3100") == {"week1/slides.pdf": FileRecord("week1/slides.pdf", "sha-1", 4)}
    assert again.vector_search("csc3100", vectors[1], 1)[0].chunk == chunks[1]
    assert again.lexical_search("csc3100", ["pivot"], 1)[0].chunk == chunks[3]


def test_a_staged_rebuild_never_empties_the_course_and_its_commit_keeps_what_was_put(store):
    store.replace_file("c1", "week1.pdf", "h1", chunks_for("c1", "week1.pdf", WEEK1, "h1"), unit_vectors(len(WEEK1), 1))
    store.replace_file("c1", "old.pdf", "h0", chunks_for("c1", "old.pdf", WEEK2, "h0"), unit_vectors(len(WEEK2), 2))
    stage = store.stage("c1")
    stage.put("week1.pdf", "h9", chunks_for("c1", "week1.pdf", WEEK2, "h9"), unit_vectors(len(WEEK2), 3))
    # Before the commit the course still answers, and no file of the previous version is gone.
    assert set(store.files("c1")) == {"week1.pdf", "old.pdf"} and store.count("c1") > 0
    stage.commit()
    assert {s: r.file_hash for s, r in store.files("c1").items()} == {"week1.pdf": "h9"}
    hits = store.lexical_search("c1", word_tokens("quick sort pivot"), 10)
    assert {h.chunk.source for h in hits} <= {"week1.pdf"}


def test_index_model_and_readable_files(store, backend):
    assert store.index_model("c1") is None
    store.replace_file("c1", "week1.pdf", "h1", chunks_for("c1", "week1.pdf", WEEK1, "h1"), unit_vectors(len(WEEK1), 1))
    assert backend.reopen().unreadable_files("c1") == frozenset()


def test_sentence_vectors_score_only_the_asked_chunks_of_the_course_and_follow_their_file(store, backend):
    from courserag.retrieval.sentence_vectors import SentenceVectors

    texts = ["Merge sort splits. Merge sort merges.", "Quick sort pivots. It works in place.", "One sentence."]
    chunks = chunks_for("c1", "a.pdf", texts, "h1")
    ids = [c.id for c in chunks]
    sentence_vectors = unit_vectors(4, 6)
    store.replace_file(
        "c1", "a.pdf", "h1", chunks, unit_vectors(3, 5), SentenceVectors.of([0, 0, 1, 1], sentence_vectors, DIM)
    )
    query = sentence_vectors[3]
    best = backend.reopen().best_sentences("c1", ids + ["no-such-chunk"], query)
    expected = {ids[0]: float(max(sentence_vectors[:2] @ query)), ids[1]: 1.0}  # the third has no sentences
    assert best == pytest.approx(expected, abs=2e-3)
    assert store.best_sentences("c1", ids[:1], query) == pytest.approx({ids[0]: expected[ids[0]]}, abs=2e-3)
    assert store.best_sentences("c2", ids, query) == {}
    # A new version of the file without the second chunk: its sentences go with it.
    store.replace_file(
        "c1", "a.pdf", "h2", chunks[:1], unit_vectors(1, 5), SentenceVectors.of([0, 0], sentence_vectors[:2], DIM)
    )
    assert set(store.best_sentences("c1", ids, query)) == {ids[0]}
    store.delete_file("c1", "a.pdf")
    assert store.best_sentences("c1", ids, query) == {}
