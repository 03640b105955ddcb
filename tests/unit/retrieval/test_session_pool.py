import pytest

from courserag.errors import SessionLimitError
from courserag.records import Chunk
from courserag.retrieval.session_pool import SessionPool, SessionRegistry, UploadedFile


def chunks_for(name, texts):
    return [Chunk.make(t, name, f"page {i + 1}", "upload") for i, t in enumerate(texts)]


def upload(pool, embedder, name, texts, size=100):
    """Add a file to the pool, embedding with the fake (the real embedder is exercised in test_engine)."""
    file = UploadedFile(name, name + "-hash", "pdf", len(texts), len(texts), size)
    return pool.add_file(file, chunks_for(name, texts), embedder.embed_batch)


def test_upload_extends_index_without_rebuild_and_queries_never_rebuild(fake_embedder):
    pool = SessionPool(dim=8)
    upload(pool, fake_embedder, "a.pdf", ["alpha beta", "gamma delta"])
    upload(pool, fake_embedder, "b.pdf", ["epsilon"])
    assert (pool.index.builds, pool.index.extends) == (0, 2)
    for _ in range(20):
        pool.vector_search(fake_embedder.embed_query("alpha beta"), 3)
        pool.lexical_search(["alpha"], 3)
    assert (pool.index.builds, pool.index.extends) == (0, 2)
    assert pool.vector_search(fake_embedder.embed_query("alpha beta"), 1)[0].chunk.text == "alpha beta"


def test_identical_content_is_embedded_once(fake_embedder):
    pool = SessionPool(dim=8)
    upload(pool, fake_embedder, "a.pdf", ["same text", "other"])
    upload(pool, fake_embedder, "copy.pdf", ["same text", "other"])
    assert pool.embedded_texts == 2
    assert len(pool) == 4


def test_remove_file_drops_its_chunks_with_one_rebuild_and_no_embedding(fake_embedder):
    pool = SessionPool(dim=8)
    upload(pool, fake_embedder, "a.pdf", ["alpha"])
    upload(pool, fake_embedder, "b.pdf", ["beta"])
    calls = len(fake_embedder.batches)
    assert pool.remove_file("a.pdf")
    assert [c.source for c in pool.index.chunks] == ["b.pdf"]
    assert pool.index.builds == 1 and len(fake_embedder.batches) == calls
    assert pool.lexical_search(["alpha"], 5) == []
    assert not pool.remove_file("a.pdf")


def test_chunk_and_size_limits(fake_embedder):
    pool = SessionPool(dim=8, max_chunks=2, max_bytes=150)
    upload(pool, fake_embedder, "a.pdf", ["one", "two"])
    with pytest.raises(SessionLimitError, match="limit of 2"):
        upload(pool, fake_embedder, "b.pdf", ["three"])
    with pytest.raises(SessionLimitError, match="exceed"):
        pool.check_room(100, "c.pdf")


def test_registry_isolates_and_releases_sessions(fake_embedder):
    registry = SessionRegistry(dim=8, idle_seconds=3600)
    upload(registry.get("s1"), fake_embedder, "mine.pdf", ["secret notes"])
    assert registry.peek("s2") is None
    assert registry.get("s2").lexical_search(["secret"], 5) == []
    registry.release("s1")
    assert registry.peek("s1") is None


def test_registry_sweeps_idle_sessions():
    registry = SessionRegistry(dim=8, idle_seconds=0.0)
    registry.get("s1")
    assert registry.sweep() == 1
    assert len(registry) == 0
