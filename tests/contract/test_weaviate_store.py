"""WeaviateCourseStore over the wire: the real weaviate-client against the fake Weaviate
server in tests/weaviate_server (REST + gRPC on 127.0.0.1); LlamaIndex (a dev dependency)
checks that what we write is still the layout it writes and reads.

Vectors are random unit vectors (fixed seeds, dim 384): no embedding model is needed.
"""

from __future__ import annotations

import logging
import time
import traceback

import numpy as np
import pytest
import weaviate
from weaviate.util import generate_uuid5

from courserag.config.settings import Settings
from courserag.errors import ConfigError, StoreUnavailableError
from courserag.lang.textnorm import word_tokens
from courserag.records import Chunk
from courserag.retrieval.bm25 import BM25Index
from courserag.stores.base import CourseStore, FileRecord
from courserag.stores.weaviate import WeaviateConfig, WeaviateCourseStore, collection_schema, parse_endpoint
from courserag.stores.weaviate import batch as weaviate_batch
from courserag.stores.weaviate import store as weaviate_store
from tests.app_helpers import free_port
from tests.weaviate_server.fixtures import weaviate_server, weaviate_server_factory  # noqa: F401

DIM = 384
KEY_VAR = "WEAVIATE_API_KEY"


def unit_vectors(n: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def make_chunks(course: str, source: str, texts: list[str], file_hash: str = "hash-1") -> list[Chunk]:
    return [
        Chunk.make(text, source, f"page {i + 1}", "course", course_id=course, doc_type="pdf", file_hash=file_hash)
        for i, text in enumerate(texts)
    ]


TEXTS = [
    "Big-O notation describes the growth of an algorithm's running time.",
    "A binary search tree keeps keys in sorted order for fast lookup.",
    "Hash tables give expected constant time insertion and lookup.",
    "Dynamic programming stores answers to overlapping subproblems.",
    "Graphs are explored with breadth-first search and depth-first search.",
    "二叉搜索树的查找时间取决于树的高度。",
]


@pytest.fixture(autouse=True)
def no_api_key(monkeypatch):
    monkeypatch.delenv(KEY_VAR, raising=False)


@pytest.fixture
def server(weaviate_server_factory):  # noqa: F811 - pytest fixture injection
    # Auto-schema off: an object property missing from our schema would be rejected.
    return weaviate_server_factory(autoschema=False)


def config_for(server, **overrides) -> WeaviateConfig:
    values = dict(url=server.url, grpc_url=server.grpc_url, timeout_s=2.0)
    values.update(overrides)
    return WeaviateConfig(**values)


@pytest.fixture
def store(server):
    s = WeaviateCourseStore(config_for(server), embedder_dim=DIM)
    yield s
    s.close()


def raw_client(server):
    return weaviate.connect_to_custom(
        "127.0.0.1", server.http_port, False, "127.0.0.1", server.grpc_port, False, skip_init_checks=True
    )


# -- construction and schema -----------------------------------------------------------------


def test_implements_the_protocol_and_connects_lazily(weaviate_server):  # noqa: F811
    server = weaviate_server
    store = WeaviateCourseStore(config_for(server), embedder_dim=DIM)
    assert isinstance(store, CourseStore)
    assert store.name == "weaviate"
    assert server.db.request_log == []  # nothing until first use
    assert store.count("csc3100") == 0
    assert server.db.request_log[0] == "REST GET /v1/meta"
    store.close()


def test_requires_a_url():
    with pytest.raises(ConfigError, match="WEAVIATE_URL"):
        WeaviateConfig.from_settings(Settings())


def test_creates_the_collection_with_its_properties(store, server):
    store.count("csc3100")
    client = raw_client(server)
    try:
        config = client.collections.get("CourseChunks").config.get()
        sentences = client.collections.get("CourseChunks_Sentences").config.get()
    finally:
        client.close()
    props = {p.name: p for p in config.properties}
    assert {
        "text",
        "lexical",
        "course_id",
        "source_file",
        "locator",
        "doc_type",
        "content_hash",
        "chunk_id",
        "origin",
        "index_format",
    } <= set(props)
    assert {p.name for p in sentences.properties} == {"course_id", "source_file", "chunk_id"}
    assert all(p.index_filterable for p in sentences.properties)
    assert props["lexical"].tokenization.value == "whitespace" and props["lexical"].index_searchable
    assert props["course_id"].tokenization.value == "field" and props["course_id"].index_filterable
    assert props["source_file"].index_filterable
    assert config.vectorizer.value == "none"
    assert config.vector_index_config.distance_metric.value == "cosine"
    assert config.inverted_index_config.stopwords.preset.value == "none"
    # A second store on the same server finds both collections and does not recreate them.
    other = WeaviateCourseStore(config_for(server))
    assert other.count("csc3100") == 0
    other.close()
    assert server.db.request_log.count("REST POST /v1/schema") == 2


def test_adds_missing_properties_to_an_existing_collection(server):
    client = raw_client(server)
    client.collections.create_from_dict(
        {"class": "CourseChunks", "vectorizer": "none", "properties": [{"name": "text", "dataType": ["text"]}]}
    )
    client.close()
    store = WeaviateCourseStore(config_for(server))
    store.replace_file("c1", "a.md", "h", make_chunks("c1", "a.md", TEXTS[:2]), unit_vectors(2, 1))
    names = {p["name"] for p in server.db.get_collection("CourseChunks").schema["properties"]}
    assert {p["name"] for p in collection_schema("CourseChunks")["properties"]} <= names
    store.close()


def test_llamaindex_writes_what_the_schema_declares(store, server):
    chunks = make_chunks("csc3100", "notes/week1.pdf", TEXTS[:3], file_hash="sha-abc")
    store.replace_file("csc3100", "notes/week1.pdf", "sha-abc", chunks, unit_vectors(3, 2))
    stored = server.db.get_collection("CourseChunks").objects
    first = stored[generate_uuid5(chunks[0].id, "csc3100")]  # UUID: deterministic from the chunk id
    props = first.properties
    assert props["text"] == TEXTS[0]
    assert props["lexical"] == " ".join(word_tokens(TEXTS[0]))
    assert props["course_id"] == "csc3100" and props["source_file"] == "notes/week1.pdf"
    assert props["content_hash"] == "sha-abc" and props["chunk_id"] == chunks[0].id
    assert props["locator"] == "page 1" and props["origin"] == "course" and props["doc_type"] == "pdf"
    # LlamaIndex's own bookkeeping is there too, so LlamaIndex can read the nodes back.
    assert props["ref_doc_id"] == "csc3100/notes/week1.pdf" and props["_node_type"] == "TextNode"
    assert '"course_id": "csc3100"' in props["_node_content"]
    assert first.vector.shape == (DIM,)


def test_llamaindex_can_query_what_the_store_wrote(store, server):
    pytest.importorskip("llama_index.vector_stores.weaviate")
    from llama_index.core.vector_stores.types import VectorStoreQuery
    from llama_index.vector_stores.weaviate import WeaviateVectorStore

    vectors = unit_vectors(3, 3)
    store.replace_file("csc3100", "a.pdf", "h", make_chunks("csc3100", "a.pdf", TEXTS[:3]), vectors)
    client = raw_client(server)
    try:
        li = WeaviateVectorStore(weaviate_client=client, index_name="CourseChunks", text_key="text")
        result = li.query(VectorStoreQuery(query_embedding=vectors[1].tolist(), similarity_top_k=1))
    finally:
        client.close()
    assert result.nodes[0].text == TEXTS[1]
    assert result.nodes[0].metadata["course_id"] == "csc3100"


# -- search ----------------------------------------------------------------------------------


def test_vector_search_ranks_by_cosine_similarity(store):
    vectors = unit_vectors(len(TEXTS), 4)
    chunks = make_chunks("csc3100", "a.pdf", TEXTS)
    store.replace_file("csc3100", "a.pdf", "hash-1", chunks, vectors)
    query = vectors[2] * 0.8 + vectors[4] * 0.2
    query /= np.linalg.norm(query)
    results = store.vector_search("csc3100", query, 3)
    expected = np.argsort(-(vectors @ query))[:3]
    assert [r.chunk.id for r in results] == [chunks[i].id for i in expected]
    assert [r.vector for r in results] == pytest.approx([float(vectors[i] @ query) for i in expected], abs=1e-5)
    assert all(r.store == "weaviate" and r.score == r.vector and r.signals == ("vector",) for r in results)
    assert results[0].chunk == chunks[2]  # every field survives the round trip


def test_lexical_search_gives_the_local_bm25_scores(store):
    chunks = make_chunks("csc3100", "a.pdf", TEXTS)
    store.replace_file("csc3100", "a.pdf", "hash-1", chunks, unit_vectors(len(TEXTS), 5))
    local = BM25Index([word_tokens(t) for t in TEXTS])
    for query in ("binary search tree lookup", "search", "二叉搜索树 高度"):
        tokens = word_tokens(query)
        results = store.lexical_search("csc3100", tokens, 4)
        expected = local.search(tokens, 4)
        assert [r.chunk.id for r in results] == [chunks[i].id for i, _ in expected], query
        assert [r.lexical for r in results] == pytest.approx([s for _, s in expected], rel=1e-4), query
        assert all(r.signals == ("lexical",) and r.store == "weaviate" for r in results)
    assert store.lexical_search("csc3100", ["nonexistentword"], 4) == []
    assert store.lexical_search("csc3100", [], 4) == []


def test_hybrid_search_blends_both_signals(store):
    vectors = unit_vectors(len(TEXTS), 6)
    chunks = make_chunks("csc3100", "a.pdf", TEXTS)
    store.replace_file("csc3100", "a.pdf", "hash-1", chunks, vectors)
    tokens = word_tokens("hash tables")
    pure_vector = store.hybrid_search("csc3100", tokens, vectors[0], 3, alpha=1.0)
    assert pure_vector[0].chunk.id == chunks[0].id and pure_vector[0].vector == pytest.approx(1.0, abs=1e-5)
    pure_keyword = store.hybrid_search("csc3100", tokens, vectors[0], 3, alpha=0.0)
    assert pure_keyword[0].chunk.id == chunks[2].id
    both = store.hybrid_search("csc3100", tokens, vectors[0], 6, alpha=0.5)
    assert {r.chunk.id for r in both[:2]} == {chunks[0].id, chunks[2].id}
    assert [r.score for r in both] == sorted((r.score for r in both), reverse=True)
    assert all(r.signals == ("hybrid",) for r in both)


def test_search_is_separate_or_native_hybrid_as_the_config_says(store, server):
    vectors = unit_vectors(len(TEXTS), 6)
    chunks = make_chunks("csc3100", "a.pdf", TEXTS)
    store.replace_file("csc3100", "a.pdf", "hash-1", chunks, vectors)
    tokens = word_tokens("hash tables")
    separate = store.search("csc3100", vectors[0], tokens, 3)
    assert separate.store == "weaviate" and separate.vector[0].chunk.id == chunks[0].id
    assert separate.lexical[0].chunk.id == chunks[2].id and separate.lexical[0].signals == ("lexical",)
    hybrid_store = WeaviateCourseStore(config_for(server, search="hybrid", hybrid_alpha=0.0), embedder_dim=DIM)
    try:
        hybrid = hybrid_store.search("csc3100", vectors[0], tokens, 3)
    finally:
        hybrid_store.close()
    # Native hybrid: one fused list, its score as the lexical signal.
    assert hybrid.vector == [] and hybrid.lexical[0].chunk.id == chunks[2].id
    assert all(h.signals == ("hybrid",) and h.lexical == h.score for h in hybrid.lexical)


def test_a_search_never_returns_another_courses_chunks(store):
    # Same texts, same vectors, two courses: only the course_id filter tells them apart.
    vectors = unit_vectors(len(TEXTS), 7)
    store.replace_file("csc3100", "a.pdf", "hash-1", make_chunks("csc3100", "a.pdf", TEXTS), vectors)
    store.replace_file("mat2040", "a.pdf", "hash-1", make_chunks("mat2040", "a.pdf", TEXTS), vectors)
    store.replace_file(
        "mat2040",
        "only.pdf",
        "hash-2",
        make_chunks("mat2040", "only.pdf", ["eigenvalues of matrices"]),
        unit_vectors(1, 8),
    )
    for course in ("csc3100", "mat2040"):
        hits = (
            store.vector_search(course, vectors[1], 20)
            + store.lexical_search(course, word_tokens("search tree lookup"), 20)
            + store.hybrid_search(course, word_tokens("search tree"), vectors[1], 20)
        )
        assert hits and {h.chunk.course_id for h in hits} == {course}
    assert store.lexical_search("csc3100", ["eigenvalues"], 5) == []
    assert len(store.vector_search("csc3100", unit_vectors(1, 8)[0], 50)) == len(TEXTS)
    assert store.count("csc3100") == len(TEXTS) and store.count("mat2040") == len(TEXTS) + 1
    assert set(store.files("mat2040")) == {"a.pdf", "only.pdf"} and set(store.files("csc3100")) == {"a.pdf"}


# -- writes ----------------------------------------------------------------------------------


def test_replace_file_removes_the_previous_chunks(store):
    store.replace_file("csc3100", "a.pdf", "v1", make_chunks("csc3100", "a.pdf", TEXTS, "v1"), unit_vectors(6, 9))
    new = make_chunks("csc3100", "a.pdf", ["Completely new first page.", "And a second one."], "v2")
    store.replace_file("csc3100", "a.pdf", "v2", new, unit_vectors(2, 10))
    assert store.count("csc3100") == 2
    assert store.files("csc3100") == {"a.pdf": FileRecord("a.pdf", "v2", 2)}
    assert store.lexical_search("csc3100", word_tokens("binary search tree"), 10) == []
    assert {r.chunk.id for r in store.vector_search("csc3100", unit_vectors(1, 11)[0], 10)} == {c.id for c in new}


def test_replacing_with_the_same_content_keeps_the_counts(store, server):
    chunks = make_chunks("csc3100", "a.pdf", TEXTS)
    vectors = unit_vectors(len(TEXTS), 12)
    store.replace_file("csc3100", "a.pdf", "hash-1", chunks, vectors)
    before = set(server.db.get_collection("CourseChunks").objects)
    store.replace_file("csc3100", "a.pdf", "hash-1", chunks, vectors)
    assert store.count("csc3100") == len(TEXTS)
    assert set(server.db.get_collection("CourseChunks").objects) == before  # same UUIDs, upserted
    assert store.files("csc3100") == {"a.pdf": FileRecord("a.pdf", "hash-1", len(TEXTS))}


def test_files_report_hash_and_count_per_file(store):
    store.replace_file("csc3100", "a.pdf", "ha", make_chunks("csc3100", "a.pdf", TEXTS[:4], "ha"), unit_vectors(4, 13))
    store.replace_file(
        "csc3100", "dir/b.md", "hb", make_chunks("csc3100", "dir/b.md", TEXTS[4:], "hb"), unit_vectors(2, 14)
    )
    assert store.files("csc3100") == {
        "a.pdf": FileRecord("a.pdf", "ha", 4),
        "dir/b.md": FileRecord("dir/b.md", "hb", 2),
    }
    assert store.files("unknown") == {}


def test_delete_file_and_delete_course(weaviate_server_factory, monkeypatch):  # noqa: F811
    # A small QUERY_MAXIMUM_RESULTS proves that deletes loop until nothing matches and that
    # listing a file's chunks pages (offset + limit must stay under it, as on Weaviate).
    server = weaviate_server_factory(autoschema=False, query_maximum_results=12)
    monkeypatch.setattr(weaviate_store, "PAGE", 4)
    store = WeaviateCourseStore(config_for(server), embedder_dim=DIM)
    many = [f"chunk number {i}" for i in range(10)]
    for course, source, seed in (
        ("csc3100", "a.pdf", 15),
        ("csc3100", "b.pdf", 16),
        ("csc3100", "c.pdf", 17),
        ("mat2040", "a.pdf", 18),
    ):
        store.replace_file(course, source, "h", make_chunks(course, source, many), unit_vectors(10, seed))
    store.replace_file("csc3100", "a.pdf", "h2", make_chunks("csc3100", "a.pdf", many[:9], "h2"), unit_vectors(9, 19))
    assert store.files("csc3100")["a.pdf"] == FileRecord("a.pdf", "h2", 9)
    store.delete_file("csc3100", "a.pdf")
    assert set(store.files("csc3100")) == {"b.pdf", "c.pdf"} and store.count("csc3100") == 20
    store.delete_file("csc3100", "missing.pdf")  # no error
    store.delete_course("csc3100")  # 20 chunks, at most 12 per delete call
    assert store.count("csc3100") == 0 and store.files("csc3100") == {}
    assert store.count("mat2040") == 10
    store.close()


def test_rejected_chunks_raise_naming_the_file_and_keep_the_old_version(store, server):
    store.replace_file("csc3100", "a.pdf", "v1", make_chunks("csc3100", "a.pdf", TEXTS[:3], "v1"), unit_vectors(3, 18))
    server.db.inject_batch_errors("invalid text property 'text' on class 'CourseChunks': not a string")
    with pytest.raises(StoreUnavailableError, match=r"rejected 2 of 2 chunks of 'a\.pdf'"):
        store.replace_file(
            "csc3100", "a.pdf", "v2", make_chunks("csc3100", "a.pdf", ["new one", "new two"], "v2"), unit_vectors(2, 19)
        )
    assert store.files("csc3100") == {"a.pdf": FileRecord("a.pdf", "v1", 3)}


def test_transient_batch_errors_are_retried(store, server, monkeypatch):
    monkeypatch.setattr(weaviate_batch, "RETRY_PAUSES", (0.01, 0.01))
    server.db.inject_batch_errors("connection reset by peer", "shard not ready: temporarily unavailable")
    store.replace_file("csc3100", "a.pdf", "h", make_chunks("csc3100", "a.pdf", TEXTS), unit_vectors(6, 20))
    assert store.count("csc3100") == len(TEXTS)
    assert sum(entry.startswith("gRPC BatchObjects") for entry in server.db.request_log) == 3


def test_rejects_vectors_of_the_wrong_shape(store):
    with pytest.raises(ValueError, match="384"):
        store.replace_file("csc3100", "a.pdf", "h", make_chunks("csc3100", "a.pdf", TEXTS[:2]), np.ones((2, 10)))
    with pytest.raises(ValueError, match="2 chunks but 3 vectors"):
        store.replace_file("csc3100", "a.pdf", "h", make_chunks("csc3100", "a.pdf", TEXTS[:2]), unit_vectors(3, 1))


# -- failures --------------------------------------------------------------------------------


def test_server_going_down_raises_within_seconds_and_recovers(store, server):
    vectors = unit_vectors(3, 21)
    store.replace_file("csc3100", "a.pdf", "h", make_chunks("csc3100", "a.pdf", TEXTS[:3]), vectors)
    assert store.vector_search("csc3100", vectors[0], 1)
    server.stop()
    for call in (
        lambda: store.vector_search("csc3100", vectors[0], 1),
        lambda: store.lexical_search("csc3100", ["search"], 1),
        lambda: store.count("csc3100"),
        lambda: store.replace_file("csc3100", "b.pdf", "h", make_chunks("csc3100", "b.pdf", TEXTS[:1]), vectors[:1]),
    ):
        start = time.monotonic()
        with pytest.raises(StoreUnavailableError, match=server.url):
            call()
        assert time.monotonic() - start < 6
    with pytest.raises(StoreUnavailableError, match=r"cannot index 'b\.pdf' of course 'csc3100'"):
        call()
    health = store.health()
    assert not health.ok and server.url in health.detail
    server.start()  # same ports, same data
    assert store.vector_search("csc3100", vectors[0], 1)[0].vector == pytest.approx(1.0, abs=1e-5)
    assert store.health().ok


def test_a_slow_server_times_out(store, server):
    vectors = unit_vectors(1, 24)
    store.replace_file("csc3100", "a.pdf", "h", make_chunks("csc3100", "a.pdf", TEXTS[:1]), vectors)
    server.db.delay_s = 3.5  # the store's query timeout is 2 s
    start = time.monotonic()
    with pytest.raises(StoreUnavailableError, match=f"{server.url} timed out"):
        store.vector_search("csc3100", vectors[0], 1)
    assert time.monotonic() - start < 3.5
    server.db.delay_s = 0.0


def test_a_closed_port_raises_naming_the_url():
    url = f"http://127.0.0.1:{free_port()}"
    store = WeaviateCourseStore(WeaviateConfig(url=url, timeout_s=2.0))
    start = time.monotonic()
    with pytest.raises(StoreUnavailableError) as info:
        store.files("csc3100")
    assert time.monotonic() - start < 30
    assert url in str(info.value) and "cannot reach" in str(info.value)
    health = store.health()
    assert not health.ok and url in health.detail


def test_a_wrong_grpc_port_raises_naming_the_url(server):
    store = WeaviateCourseStore(config_for(server, grpc_url=f"127.0.0.1:{free_port()}"))
    start = time.monotonic()
    with pytest.raises(StoreUnavailableError, match=server.url):
        store.count("csc3100")
    assert time.monotonic() - start < 10
    store.close()


def test_the_right_api_key_works(weaviate_server_factory, monkeypatch):  # noqa: F811
    server = weaviate_server_factory(api_key="right-key-123", autoschema=False)
    monkeypatch.setenv(KEY_VAR, "right-key-123")
    store = WeaviateCourseStore(config_for(server), embedder_dim=DIM)
    store.replace_file("csc3100", "a.pdf", "h", make_chunks("csc3100", "a.pdf", TEXTS[:2]), unit_vectors(2, 22))
    assert store.count("csc3100") == 2 and store.health().ok
    store.close()


@pytest.mark.parametrize("given", ["wrong-key-S3CRET-value", None])
def test_a_wrong_or_missing_api_key_is_a_clear_error_that_never_shows_the_key(
    weaviate_server_factory,  # noqa: F811 - the fixture imported above
    monkeypatch,
    caplog,
    given,  # noqa: F811
):
    caplog.set_level(logging.DEBUG)
    server = weaviate_server_factory(api_key="right-key-123")
    if given:
        monkeypatch.setenv(KEY_VAR, given)
    store = WeaviateCourseStore(config_for(server), embedder_dim=DIM)
    with pytest.raises(StoreUnavailableError) as info:
        store.count("csc3100")
    message = str(info.value)
    assert server.url in message and "401" in message and KEY_VAR in message
    health = store.health()
    assert not health.ok and KEY_VAR in health.detail
    shown = (
        "".join(traceback.format_exception(info.value)) + repr(info.value) + caplog.text + health.detail + repr(store)
    )
    assert "right-key-123" not in shown
    if given:
        assert given not in shown


def test_the_key_is_masked_even_if_the_server_echoes_it(weaviate_server_factory, monkeypatch):  # noqa: F811
    server = weaviate_server_factory()
    monkeypatch.setenv(KEY_VAR, "echoed-key-777")
    store = WeaviateCourseStore(config_for(server))
    store.count("c")
    server.db.inject_batch_errors("backend said: bad token echoed-key-777")
    with pytest.raises(StoreUnavailableError) as info:
        store.replace_file("c", "a.pdf", "h", make_chunks("c", "a.pdf", TEXTS[:1]), unit_vectors(1, 23))
    assert "echoed-key-777" not in str(info.value) and "***" in str(info.value)
    store.close()


# -- endpoints -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url, grpc_url, expected",
    [
        ("http://localhost:8080", None, ("localhost", 8080, False, "localhost", 50051, False, False)),
        ("http://weaviate:8080", "weaviate:50052", ("weaviate", 8080, False, "weaviate", 50052, False, False)),
        (
            "https://db.example.org",
            "grpcs://grpc.example.org",
            ("db.example.org", 443, True, "grpc.example.org", 443, True, False),
        ),
        (
            "https://abc123.c0.europe-west3.gcp.weaviate.cloud",
            None,
            (
                "abc123.c0.europe-west3.gcp.weaviate.cloud",
                443,
                True,
                "grpc-abc123.c0.europe-west3.gcp.weaviate.cloud",
                443,
                True,
                True,
            ),
        ),
        (
            "abc.weaviate.network",
            None,
            ("abc.weaviate.network", 443, True, "grpc-abc.weaviate.network", 443, True, True),
        ),
    ],
)
def test_parse_endpoint(url, grpc_url, expected):
    ep = parse_endpoint(url, grpc_url)
    assert (
        ep.http_host,
        ep.http_port,
        ep.http_secure,
        ep.grpc_host,
        ep.grpc_port,
        ep.grpc_secure,
        ep.cloud,
    ) == expected


@pytest.mark.parametrize("url", ["ftp://x:1", "http://", "http://host:notaport"])
def test_parse_endpoint_rejects_bad_urls(url):
    with pytest.raises(ConfigError, match="WEAVIATE_URL"):
        parse_endpoint(url)


def test_weaviate_cloud_urls_use_the_cloud_helper(monkeypatch):
    calls = {}

    def fake_cloud(cluster_url, auth_credentials, additional_config, skip_init_checks):
        calls.update(cluster_url=cluster_url, key=auth_credentials.api_key, timeout=additional_config.timeout)
        raise weaviate.exceptions.WeaviateStartUpError("Could not connect to Weaviate: simulated")

    monkeypatch.setattr(weaviate, "connect_to_weaviate_cloud", fake_cloud)
    monkeypatch.setenv(KEY_VAR, "cloud-key-999")
    url = "https://abc123.c0.europe-west3.gcp.weaviate.cloud"
    store = WeaviateCourseStore(WeaviateConfig(url=url, timeout_s=3.0))
    with pytest.raises(StoreUnavailableError) as info:
        store.count("csc3100")
    assert calls["cluster_url"] == "abc123.c0.europe-west3.gcp.weaviate.cloud" and calls["key"] == "cloud-key-999"
    assert calls["timeout"].query == 3.0 and calls["timeout"].init == 3.0
    assert url in str(info.value) and "cloud-key-999" not in str(info.value)


def test_chunks_written_before_sentence_vectors_ask_for_a_rebuild(server):
    """Chunk objects without the current `index_format` (written by an older version) make
    the model guard see another space: the app names the rebuild command, a build re-embeds."""
    store = WeaviateCourseStore(config_for(server, embedding_model="m"), 4)
    chunk = Chunk.make("One. Two.", "a.md", "lines 1-1", "course", course_id="c1")
    store.replace_file("c1", "a.md", "h", [chunk], np.eye(4, dtype=np.float32)[:1])
    assert store.index_model("c1") == "m"
    for obj in server.db.get_collection("CourseChunks").objects.values():
        obj.properties.pop("index_format")
    assert store.index_model("c1") == "m (without sentence vectors)"
    store.close()
