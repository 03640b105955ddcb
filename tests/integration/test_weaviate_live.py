"""Against a live Weaviate (Cloud or self-hosted): skipped unless WEAVIATE_URL is set when
pytest starts. Uses a throw-away collection, deleted afterwards.

    WEAVIATE_URL=https://<cluster>.weaviate.cloud WEAVIATE_API_KEY=... .venv/bin/pytest -m live_weaviate
"""

import os
import uuid

import numpy as np
import pytest

from courserag.records import Chunk

# Read at import time: the autouse fixture in conftest.py clears these for every other test.
LIVE_URL = os.environ.get("WEAVIATE_URL")
LIVE_GRPC = os.environ.get("WEAVIATE_GRPC_URL")
LIVE_KEY = os.environ.get("WEAVIATE_API_KEY")

pytestmark = [
    pytest.mark.live_weaviate,
    pytest.mark.skipif(not LIVE_URL, reason="no live Weaviate: set WEAVIATE_URL (and WEAVIATE_API_KEY) to run"),
]


@pytest.fixture
def live_store(monkeypatch):
    from courserag.stores.weaviate import WeaviateConfig, WeaviateCourseStore

    if LIVE_KEY:
        monkeypatch.setenv("WEAVIATE_API_KEY", LIVE_KEY)
    collection = f"CourseChunksTest{uuid.uuid4().hex[:8]}"
    config = WeaviateConfig(url=LIVE_URL, grpc_url=LIVE_GRPC, collection=collection, timeout_s=20)
    store = WeaviateCourseStore(config, 384)
    yield store
    try:
        store.delete_course("live-a")
        store.delete_course("live-b")
        store._conn.run("drop the test collection", lambda client: client.collections.delete(collection), 60)
    finally:
        store.close()


def _vectors(n, seed):
    v = np.random.default_rng(seed).normal(size=(n, 384)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_live_round_trip_and_course_isolation(live_store):
    a = [Chunk.make(f"alpha topic {i}", "a.md", f"page {i}", "course", "live-a") for i in range(3)]
    b = [Chunk.make(f"beta topic {i}", "b.md", f"page {i}", "course", "live-b") for i in range(3)]
    va, vb = _vectors(3, 1), _vectors(3, 2)
    live_store.replace_file("live-a", "a.md", "h1", a, va)
    live_store.replace_file("live-b", "b.md", "h2", b, vb)
    assert live_store.count("live-a") == 3
    hits = live_store.vector_search("live-a", vb[0], 10)
    assert hits and {h.chunk.course_id for h in hits} == {"live-a"}
    assert abs(live_store.vector_search("live-a", va[0], 1)[0].vector - 1.0) < 1e-3
    lexical = live_store.lexical_search("live-b", ["beta"], 10)
    assert lexical and {h.chunk.course_id for h in lexical} == {"live-b"}
    assert live_store.health().ok
