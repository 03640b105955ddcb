"""Sentence vectors (courserag/retrieval/sentence_vectors.py): the pure pieces, table-driven, and their path
through the chunk index, the local store and the session pool."""

from __future__ import annotations

import numpy as np
import pytest

from courserag.records import Chunk, ScoredChunk
from courserag.retrieval.chunk_index import ChunkIndex
from courserag.retrieval.sentence_vectors import (
    SENTENCE_DTYPE,
    SentenceVectors,
    chunk_sentences,
    embed_chunks,
    quantize,
    sentence_spans,
    with_sentences,
)

DIM = 4


def _chunk(text: str, source: str = "a.md", course: str | None = "c1") -> Chunk:
    return Chunk.make(text, source, "lines 1-1", "course" if course else "upload", course_id=course)


def _unit(*values: float) -> np.ndarray:
    v = np.asarray(values, dtype=np.float32)
    return v / np.linalg.norm(v)


@pytest.mark.parametrize(
    "texts, sentences, owners",
    [
        ([], [], []),
        (["One sentence only."], [], []),  # its own best sentence: no extra vector
        (["First one. Second one."], ["First one.", "Second one."], [0, 0]),
        (["Alone.", "A b. C d! E f?"], ["A b.", "C d!", "E f?"], [1, 1, 1]),
        (["第一句。第二句！", "x"], ["第一句。", "第二句！"], [0, 0]),
    ],
)
def test_chunk_sentences_only_for_chunks_of_two_or_more(texts, sentences, owners):
    assert chunk_sentences([_chunk(t) for t in texts]) == (sentences, owners)


@pytest.mark.parametrize(
    "owners, spans",
    [
        ([], {}),
        ([0], {0: (0, 1)}),
        ([0, 0, 2, 2, 2, 5], {0: (0, 2), 2: (2, 5), 5: (5, 6)}),
    ],
)
def test_sentence_spans_are_runs_of_one_owner(owners, spans):
    assert sentence_spans(np.asarray(owners, dtype=np.int32)) == spans


@pytest.mark.parametrize(
    "spans, expected",
    [
        ([], []),
        ([(0, 1)], [1.0]),
        ([(1, 3)], [0.6]),  # max of 0.0 and 0.6
        ([(1, 3), (0, 1), (3, 4)], [0.6, 1.0, -1.0]),
    ],
)
def test_best_sentence_scores_is_the_max_cosine_per_span(spans, expected):
    vectors = np.stack([_unit(1, 0, 0, 0), _unit(0, 1, 0, 0), _unit(0.6, 0.8, 0, 0), _unit(-1, 0, 0, 0)])
    sentences = SentenceVectors.of([0, 1, 2, 3], vectors, DIM)
    assert sentences.best_scores(spans, _unit(1, 0, 0, 0)) == pytest.approx(expected, abs=1e-2)


@pytest.mark.parametrize("dim, seed", [(4, 0), (384, 1), (896, 2)])
def test_int8_sentence_vectors_keep_every_cosine_within_half_a_hundredth(dim, seed):
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((200, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = rng.standard_normal((20, dim)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    sentences = SentenceVectors.of(range(200), vectors, dim)
    assert sentences.codes.dtype == np.int8 and int(np.abs(sentences.codes).max()) == 127
    for query in queries:
        exact = vectors @ query
        assert np.abs(np.array(sentences.best_scores([(i, i + 1) for i in range(200)], query)) - exact).max() < 0.005


@pytest.mark.parametrize(
    "rows",
    [
        [[0.0, 0.0, 0.0, 0.0]],  # a zero vector stays zero (no division by its peak)
        [[1.0, 0.0, 0.0, 0.0], [0.0, -0.5, 0.25, 0.0]],
        [],
    ],
)
def test_quantize_reproduces_each_row_within_half_a_step(rows):
    vectors = np.asarray(rows, dtype=np.float32).reshape(len(rows), DIM)
    codes, scales = quantize(vectors)
    assert codes.shape == vectors.shape and scales.shape == (len(rows),)
    decoded = codes.astype(np.float32) * scales[:, None]
    assert np.all(np.abs(decoded - vectors) <= scales[:, None] / 2 + 1e-7)


def test_stored_codes_are_read_back_unchanged():
    vectors = np.stack([_unit(1, 0, 0, 0), _unit(0.6, 0.8, 0, 0)])
    written = SentenceVectors.of([0, 0], vectors, DIM)
    read = SentenceVectors.stored(written.owners, written.codes, written.scales, DIM)
    again = SentenceVectors.of(read.owners, read.vectors, DIM)  # a float store (Weaviate) round trip
    assert np.array_equal(read.codes, written.codes) and np.array_equal(again.codes, written.codes)
    assert np.allclose(again.scales, written.scales)


@pytest.mark.parametrize(
    "vector, best, weight, expected",
    [
        (0.4, None, 0.5, 0.4),  # no sentence vectors: the chunk's own similarity
        (0.4, 0.8, 0.5, 0.6),
        (0.4, 0.8, 0.0, 0.4),  # weight 0: chunk vectors alone
        (0.4, 0.8, 1.0, 0.8),
        (0.6, 0.2, 0.5, 0.4),  # a weak best sentence pulls the chunk down too
    ],
)
def test_the_ranking_similarity_blends_the_best_sentence_in(vector, best, weight, expected):
    from courserag.retrieval.ranking import ranking_similarity

    c = ScoredChunk(_chunk("x. y."), vector=vector, lexical=0.3, signals=("vector",))
    out = with_sentences([c], {} if best is None else {c.chunk.id: best})
    assert out[0].sentence == best
    assert (out[0].vector, out[0].lexical, out[0].signals, out[0].chunk) == (vector, 0.3, ("vector",), c.chunk)
    assert ranking_similarity(out[0], weight) == pytest.approx(expected)


def test_embed_chunks_embeds_the_chunks_alone_then_their_sentences():
    calls = []

    def embed(texts):
        calls.append(list(texts))
        return np.stack([_unit(len(t), 1, 0, 0) for t in texts])

    chunks = [_chunk("One."), _chunk("Two a. Two b.")]
    vectors, sentences = embed_chunks(embed, chunks, DIM)
    assert calls == [["One.", "Two a. Two b."], ["Two a.", "Two b."]]
    assert vectors.shape == (2, DIM) and vectors.dtype == np.float32
    assert sentences.owners.tolist() == [1, 1] and sentences.codes.dtype == SENTENCE_DTYPE


@pytest.mark.parametrize(
    "owners, rows, kept_owners",
    [
        ([0, 0, 1, 3], [0, 1, 2, 3], [0, 0, 1, 3]),
        ([0, 0, 1, 3], [1, 3], [0, 1]),
        ([0, 0, 1, 3], [2], []),
    ],
)
def test_select_renumbers_owners(owners, rows, kept_owners):
    vectors = np.arange(len(owners) * DIM, dtype=np.float32).reshape(len(owners), DIM)
    picked = SentenceVectors.of(owners, vectors, DIM).select(rows)
    assert picked.owners.tolist() == kept_owners
    assert len(picked.vectors) == len(kept_owners)


def _indexed(index: ChunkIndex, texts: list[str], query: np.ndarray):
    chunks = [_chunk(t) for t in texts]
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((len(chunks), DIM)).astype(np.float32)
    sentences, owners = chunk_sentences(chunks)
    # the second sentence of each chunk is the query itself
    sentence_vectors = np.stack([query if i % 2 else _unit(0, 0, 0, 1) for i in range(len(sentences))])
    index.add(chunks, vectors, [[t] for t in texts], SentenceVectors.of(owners, sentence_vectors, DIM))
    return chunks


def test_chunk_index_scores_only_the_asked_chunks_and_survives_removal():
    index = ChunkIndex(DIM, "session")
    query = _unit(1, 0, 0, 0)
    a = _indexed(index, ["A one. A two.", "Single."], query)
    b = _indexed(index, ["B one. B two."], query)
    best = index.best_sentences([a[0].id, a[1].id, b[0].id, "unknown"], query)
    assert best == pytest.approx({a[0].id: 1.0, b[0].id: 1.0}, abs=1e-3)
    index.keep(lambda c: c.id != a[0].id)
    assert index.best_sentences([a[0].id, b[0].id], query) == pytest.approx({b[0].id: 1.0}, abs=1e-3)


def test_the_local_store_keeps_sentence_vectors_across_a_reopen(tmp_path):
    from courserag.stores.local import LocalCourseStore

    chunks = [_chunk("One a. One b."), _chunk("Two.")]
    query = _unit(0, 1, 0, 0)
    vectors = np.stack([_unit(1, 0, 0, 0), _unit(0, 0, 1, 0)])
    sentences = SentenceVectors.of([0, 0], np.stack([_unit(0, 0, 0, 1), query]), DIM)
    LocalCourseStore(tmp_path, DIM, "m").replace_file("c1", "a.md", "h", chunks, vectors, sentences)
    store = LocalCourseStore(tmp_path, DIM, "m")
    assert store.index_model("c1") == "m"
    assert store.best_sentences("c1", [c.id for c in chunks], query) == pytest.approx({chunks[0].id: 1.0}, abs=1e-3)
    with pytest.raises(ValueError):
        store.replace_file("c1", "b.md", "h", chunks[:1], vectors[:1], SentenceVectors.of([3], query[None, :], DIM))


def test_an_index_without_sentence_vectors_asks_for_a_rebuild(tmp_path):
    """An index written before sentence vectors is another space for the model guard: the
    app names the command to run, and a build re-embeds it (indexer._plan)."""
    import json

    from courserag.errors import EmbeddingSpaceError
    from courserag.stores.local import LocalCourseStore

    store = LocalCourseStore(tmp_path, DIM, "m")
    store.replace_file("c1", "a.md", "h", [_chunk("x")], np.eye(DIM, dtype=np.float32)[:1])
    path = tmp_path / "c1" / "manifest.json"
    manifest = json.loads(path.read_text())
    del manifest["index_format"]
    path.write_text(json.dumps(manifest))
    old = LocalCourseStore(tmp_path, DIM, "m")
    assert old.index_model("c1") == "m (without sentence vectors)"
    with pytest.raises(EmbeddingSpaceError) as caught:
        old.vector_search("c1", _unit(1, 0, 0, 0), 1)
    assert "python build_weaviate_index.py --course c1" in str(caught.value)


def test_the_session_pool_embeds_sentences_with_the_chunks_once(fake_embedder):
    from courserag.retrieval.session_pool import SessionPool, UploadedFile

    pool = SessionPool(dim=fake_embedder.dim, sentence_vectors=True)
    chunks = [_chunk("Notes one. Notes two.", "n.md", None), _chunk("Short.", "n.md", None)]
    uploaded = UploadedFile("n.md", "h", "md", 2, 1, 10)
    pool.add_file(uploaded, chunks, fake_embedder.embed_batch)
    assert sorted(fake_embedder.seen) == sorted(["Notes one. Notes two.", "Short.", "Notes one.", "Notes two."])
    query = fake_embedder.embed_batch(["Notes two."])[0]
    best = pool.best_sentences([c.id for c in chunks], query)
    assert set(best) == {chunks[0].id} and best[chunks[0].id] == pytest.approx(1.0, abs=1e-3)
    pool.add_file(uploaded, chunks, fake_embedder.embed_batch)  # the same file again: nothing embedded
    assert len(fake_embedder.seen) == 5


def test_the_apps_pools_embed_no_sentences(fake_embedder):
    """Uploads rank by chunk vectors (SessionPool.sentence_vectors is off): sentence
    vectors would make a 50-page PDF answerable in 9.3 s instead of 4.7 s."""
    from courserag.retrieval.session_pool import SessionPool, UploadedFile

    pool = SessionPool(dim=fake_embedder.dim)
    chunks = [_chunk("Notes one. Notes two.", "n.md", None)]
    pool.add_file(UploadedFile("n.md", "h", "md", 1, 1, 10), chunks, fake_embedder.embed_batch)
    assert fake_embedder.seen == ["Notes one. Notes two."]
    assert pool.best_sentences([chunks[0].id], fake_embedder.embed_batch(["Notes two."])[0]) == {}
