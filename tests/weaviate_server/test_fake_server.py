"""The fake Weaviate server itself, through the real weaviate-client: the parts the course
store tests do not reach (Or/Not filters, dry-run deletes, auto-schema, ranked fusion,
thresholds, auth on each protocol, QUERY_MAXIMUM_RESULTS, stop/start)."""

from __future__ import annotations

import grpc
import httpx
import numpy as np
import pytest
import weaviate
from weaviate.classes.init import Auth
from weaviate.classes.query import Filter, HybridFusion, MetadataQuery
from weaviate.exceptions import UnexpectedStatusCodeError, WeaviateQueryError
from weaviate.proto.v1 import search_get_pb2, weaviate_pb2_grpc
from weaviate.util import generate_uuid5

from tests.weaviate_server import start_server


def connect(server, key=None):
    return weaviate.connect_to_custom(
        "127.0.0.1",
        server.http_port,
        False,
        "127.0.0.1",
        server.grpc_port,
        False,
        auth_credentials=Auth.api_key(key) if key else None,
        skip_init_checks=True,
    )


ROWS = [  # (course, kind, text)
    ("c1", "pdf", "alpha beta"),
    ("c1", "md", "beta gamma"),
    ("c2", "pdf", "gamma delta"),
    ("c2", "md", "delta alpha beta"),
    ("c3", "pdf", "epsilon"),
]


@pytest.fixture
def loaded():
    server = start_server()
    client = connect(server)
    client.collections.create_from_dict(
        {
            "class": "Things",
            "vectorizer": "none",
            "invertedIndexConfig": {"stopwords": {"preset": "none"}},
            "properties": [
                {"name": "course", "dataType": ["text"], "tokenization": "field"},
                {"name": "kind", "dataType": ["text"], "tokenization": "field"},
                {"name": "text", "dataType": ["text"], "tokenization": "whitespace"},
            ],
        }
    )
    vectors = np.eye(len(ROWS), 8, dtype=np.float32)
    with client.batch.fixed_size(batch_size=len(ROWS)) as batch:
        for i, (course, kind, text) in enumerate(ROWS):
            batch.add_object(
                "Things",
                {"course": course, "kind": kind, "text": text},
                uuid=generate_uuid5(i),
                vector=vectors[i].tolist(),
            )
    assert client.batch.failed_objects == []
    yield server, client, client.collections.get("Things"), vectors
    client.close()
    server.stop()


def texts(result) -> set[str]:
    return {o.properties["text"] for o in result.objects}


def test_filters(loaded):
    _, _, things, _ = loaded
    course, kind = Filter.by_property("course"), Filter.by_property("kind")
    assert texts(things.query.fetch_objects(filters=course.equal("c1"))) == {"alpha beta", "beta gamma"}
    either = (course.equal("c1") | course.equal("c2")) & kind.equal("pdf")
    assert texts(things.query.fetch_objects(filters=either)) == {"alpha beta", "gamma delta"}
    assert texts(things.query.fetch_objects(filters=Filter.not_(course.equal("c2")) & kind.not_equal("md"))) == {
        "alpha beta",
        "epsilon",
    }
    assert texts(things.query.fetch_objects(filters=course.contains_any(["c3", "c9"]))) == {"epsilon"}
    assert texts(things.query.fetch_objects(filters=Filter.by_id().equal(generate_uuid5(4)))) == {"epsilon"}
    assert texts(things.query.fetch_objects(filters=Filter.by_property("text").like("delta*"))) == {"delta alpha beta"}


def test_batch_delete_dry_run_and_verbose(loaded):
    _, _, things, _ = loaded
    dry = things.data.delete_many(where=Filter.by_property("kind").equal("pdf"), dry_run=True)
    assert (dry.matches, dry.successful, dry.failed) == (3, 0, 0)
    assert len(things.query.fetch_objects(limit=100).objects) == 5
    done = things.data.delete_many(where=Filter.by_property("kind").equal("pdf"), verbose=True)
    assert (done.matches, done.successful) == (3, 3) and all(o.successful for o in done.objects)
    assert texts(things.query.fetch_objects(limit=100)) == {"beta gamma", "delta alpha beta"}


def test_searches(loaded):
    _, _, things, vectors = loaded
    near = things.query.near_vector(
        vectors[1].tolist(), limit=2, return_metadata=MetadataQuery(distance=True, certainty=True)
    )
    assert near.objects[0].properties["text"] == "beta gamma"
    assert near.objects[0].metadata.distance == pytest.approx(0.0, abs=1e-6)
    assert near.objects[0].metadata.certainty == pytest.approx(1.0, abs=1e-6)
    assert len(things.query.near_vector(vectors[1].tolist(), distance=0.5).objects) == 1
    bm25 = things.query.bm25("alpha", query_properties=["text"], return_metadata=MetadataQuery(score=True))
    assert texts(bm25) == {"alpha beta", "delta alpha beta"} and bm25.objects[0].properties["text"] == "alpha beta"
    filtered = things.query.bm25("alpha", filters=Filter.by_property("course").equal("c2"))
    assert texts(filtered) == {"delta alpha beta"}
    for fusion in (HybridFusion.RELATIVE_SCORE, HybridFusion.RANKED):
        hybrid = things.query.hybrid("epsilon", vector=vectors[0].tolist(), alpha=0.5, fusion_type=fusion, limit=2)
        assert texts(hybrid) == {"epsilon", "alpha beta"}


def test_query_maximum_results():
    server = start_server(query_maximum_results=3)
    client = connect(server)
    try:
        client.collections.create_from_dict({"class": "Few", "vectorizer": "none"})
        with pytest.raises(WeaviateQueryError, match="QUERY_MAXIMUM_RESULTS"):
            client.collections.get("Few").query.fetch_objects(limit=2, offset=2)
    finally:
        client.close()
        server.stop()


@pytest.mark.parametrize("autoschema", [True, False])
def test_autoschema(autoschema):
    server = start_server(autoschema=autoschema)
    client = connect(server)
    try:
        client.collections.create_from_dict(
            {"class": "Notes", "vectorizer": "none", "properties": [{"name": "text", "dataType": ["text"]}]}
        )
        with client.batch.fixed_size(batch_size=1) as batch:
            batch.add_object("Notes", {"text": "x", "pages": 3})
        failed = client.batch.failed_objects
        props = {p.name: p.data_type.value for p in client.collections.get("Notes").config.get().properties}
    finally:
        client.close()
        server.stop()
    if autoschema:
        assert failed == [] and props == {"text": "text", "pages": "number"}
    else:
        assert len(failed) == 1 and "no such prop with name 'pages'" in failed[0].message
        assert props == {"text": "text"}


def test_api_key_on_rest_and_grpc():
    server = start_server(api_key="k-123")
    try:
        assert httpx.get(f"{server.url}/v1/.well-known/ready").status_code == 200  # probes stay open
        assert httpx.get(f"{server.url}/v1/meta").status_code == 401
        with pytest.raises(UnexpectedStatusCodeError, match="401"):
            connect(server, "wrong")
        client = connect(server, "k-123")
        client.collections.create_from_dict({"class": "Secret", "vectorizer": "none"})
        assert client.collections.get("Secret").query.fetch_objects().objects == []
        client.close()
        with grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}") as channel:
            stub = weaviate_pb2_grpc.WeaviateStub(channel)
            with pytest.raises(grpc.RpcError) as info:
                stub.Search(search_get_pb2.SearchRequest(collection="Secret", uses_123_api=True), timeout=5)
            assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        server.stop()


def test_stop_and_start_keep_ports_and_data(loaded):
    server, client, things, _ = loaded
    http_port, grpc_port = server.http_port, server.grpc_port
    server.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{server.url}/v1/.well-known/live")
    server.start()
    assert (server.http_port, server.grpc_port) == (http_port, grpc_port)
    assert len(things.query.fetch_objects(limit=10).objects) == 5
