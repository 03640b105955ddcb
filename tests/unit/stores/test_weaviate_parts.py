"""The pure parts of courserag/stores/weaviate, without a server: the config, how a failure
is classified (by type, HTTP status and gRPC code, never by its wording), which batch
rejections are retried, key masking, and the object layout LlamaIndex reads."""

from __future__ import annotations

import dataclasses

import grpc
import httpx
import pytest
from weaviate import exceptions as wx

from courserag.config.settings import Settings
from courserag.errors import ConfigError
from courserag.records import Chunk
from courserag.stores.weaviate import WeaviateConfig
from courserag.stores.weaviate.batch import is_transient_batch_error
from courserag.stores.weaviate.client import FailureKind, failure_kind, mask
from courserag.stores.weaviate.schema import chunk_from, object_properties, object_uuid

# -- config ----------------------------------------------------------------------------------


def test_config_from_settings_takes_only_the_weaviate_part():
    settings = Settings(
        weaviate_url="http://db:8080",
        weaviate_grpc_url="db:50052",
        weaviate_collection="Chunks2",
        weaviate_timeout_s=7,
        weaviate_search="hybrid",
        weaviate_hybrid_alpha=0.3,
    )
    assert WeaviateConfig.from_settings(settings) == WeaviateConfig(
        url="http://db:8080",
        grpc_url="db:50052",
        collection="Chunks2_multilingual_e5_small_use_multilingual_v3_E5_int8_r3",
        timeout_s=7.0,
        search="hybrid",
        hybrid_alpha=0.3,
        embedding_model="multilingual-e5-small+use-multilingual-v3 (E5 int8 r3)",
    )
    # One collection per vector space: two models' vectors, or two int8 recipes', never meet.
    other = dataclasses.replace(settings, embedding_model="all-MiniLM-L6-v2")
    assert WeaviateConfig.from_settings(other).collection == "Chunks2_all_MiniLM_L6_v2"
    fp32 = dataclasses.replace(settings, embedding_backend="onnx")
    assert WeaviateConfig.from_settings(fp32).collection == "Chunks2_multilingual_e5_small_use_multilingual_v3"
    with pytest.raises(dataclasses.FrozenInstanceError):
        WeaviateConfig(url="http://db:8080").url = "http://other"  # type: ignore[misc]


@pytest.mark.parametrize(
    "values, variable",
    [
        (dict(url=""), "WEAVIATE_URL"),
        (dict(url="http://db", timeout_s=0), "WEAVIATE_TIMEOUT_S"),
        (dict(url="http://db", search="both"), "WEAVIATE_SEARCH"),
        (dict(url="http://db", hybrid_alpha=1.5), "WEAVIATE_HYBRID_ALPHA"),
        (dict(url="http://db", collection=""), "WEAVIATE_COLLECTION"),
    ],
)
def test_config_rejects_bad_values_naming_the_variable(values, variable):
    with pytest.raises(ConfigError, match=variable):
        WeaviateConfig(**values)


# -- failures --------------------------------------------------------------------------------


class FakeRpcError(grpc.RpcError, grpc.Call):
    """A finished gRPC call with a status code, as grpc raises them."""

    def __init__(self, code: grpc.StatusCode):
        self._code = code

    def code(self):
        return self._code

    def details(self):
        return "details"

    def initial_metadata(self):
        return None

    def trailing_metadata(self):
        return None

    def is_active(self):
        return False

    def time_remaining(self):
        return None

    def cancel(self):
        return False

    def add_callback(self, callback):
        return False


def http_status(status: int) -> wx.UnexpectedStatusCodeError:
    return wx.UnexpectedStatusCodeError(
        "Meta endpoint", httpx.Response(status, request=httpx.Request("GET", "http://db/v1/meta"))
    )


def raised_from(outer: BaseException, inner: BaseException) -> BaseException:
    outer.__cause__ = inner
    return outer


@pytest.mark.parametrize(
    "make, kind",
    [
        (lambda: http_status(401), FailureKind.CREDENTIALS),
        (lambda: http_status(403), FailureKind.FORBIDDEN),
        (lambda: http_status(503), FailureKind.UNREACHABLE),
        (lambda: http_status(500), FailureKind.OTHER),
        (
            lambda: wx.UnexpectedStatusCodeError("Search", FakeRpcError(grpc.StatusCode.UNAUTHENTICATED)),
            FailureKind.CREDENTIALS,
        ),
        (
            lambda: wx.InsufficientPermissionsError(FakeRpcError(grpc.StatusCode.PERMISSION_DENIED)),
            FailureKind.FORBIDDEN,
        ),
        (
            lambda: raised_from(
                wx.WeaviateQueryError("failed", "GRPC search"), FakeRpcError(grpc.StatusCode.UNAUTHENTICATED)
            ),
            FailureKind.CREDENTIALS,
        ),
        (
            lambda: raised_from(
                wx.WeaviateQueryError("failed", "GRPC search"), FakeRpcError(grpc.StatusCode.DEADLINE_EXCEEDED)
            ),
            FailureKind.TIMEOUT,
        ),
        (
            lambda: raised_from(
                wx.WeaviateQueryError("failed", "GRPC search"), FakeRpcError(grpc.StatusCode.UNAVAILABLE)
            ),
            FailureKind.UNREACHABLE,
        ),
        (
            lambda: raised_from(
                wx.WeaviateQueryError("failed", "GRPC search"), FakeRpcError(grpc.StatusCode.INVALID_ARGUMENT)
            ),
            FailureKind.OTHER,
        ),
        (
            lambda: raised_from(
                wx.WeaviateGRPCUnavailableError("1.32.0", ("db", 50051)), FakeRpcError(grpc.StatusCode.UNAVAILABLE)
            ),
            FailureKind.GRPC_UNREACHABLE,
        ),
        (
            lambda: raised_from(wx.WeaviateStartUpError("Could not connect"), httpx.ConnectError("refused")),
            FailureKind.UNREACHABLE,
        ),
        # A start-up failure says more than the timeout inside it.
        (
            lambda: raised_from(wx.WeaviateStartUpError("Could not connect"), httpx.ConnectTimeout("slow")),
            FailureKind.UNREACHABLE,
        ),
        (lambda: raised_from(wx.WeaviateStartUpError("Could not connect"), http_status(401)), FailureKind.CREDENTIALS),
        (lambda: wx.WeaviateClosedClientError(), FailureKind.UNREACHABLE),
        (lambda: ConnectionRefusedError(111, "refused"), FailureKind.UNREACHABLE),
        (lambda: wx.WeaviateTimeoutError("slow"), FailureKind.TIMEOUT),
        (lambda: httpx.ReadTimeout("slow"), FailureKind.TIMEOUT),
        (lambda: TimeoutError("slow"), FailureKind.TIMEOUT),
        # Words in a message decide nothing.
        (lambda: RuntimeError("unauthorized: connection unavailable, deadline exceeded, timed out"), FailureKind.OTHER),
        (lambda: wx.WeaviateQueryError("401 unauthenticated connection unavailable", "GRPC search"), FailureKind.OTHER),
    ],
)
def test_failure_kind_comes_from_types_statuses_and_codes(make, kind):
    assert failure_kind(make()) is kind


def test_failure_kind_survives_a_cycle_in_the_chain():
    a, b = RuntimeError("a"), RuntimeError("b")
    a.__cause__, b.__cause__ = b, a
    assert failure_kind(a) is FailureKind.OTHER


def test_mask_hides_the_api_key(monkeypatch):
    monkeypatch.delenv("WEAVIATE_API_KEY", raising=False)
    assert mask("token k-123 rejected") == "token k-123 rejected"
    monkeypatch.setenv("WEAVIATE_API_KEY", "k-123")
    assert mask("token k-123 rejected, k-123 again") == "token *** rejected, *** again"


# -- batch rejections ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "message, transient",
    [
        ("connection reset by peer", True),
        ("shard not ready: temporarily unavailable", True),
        ("context deadline exceeded", True),
        ("Timeout while writing to shard", True),
        ("request timed out", True),
        ("node is READ-ONLY: disk usage above threshold", True),
        ("store is readonly", True),
        ("429 Too Many Requests", True),
        ("upstream answered 502", True),
        ("503 Service Unavailable", True),
        ("504 Gateway Timeout", True),
        ("too many concurrent requests", True),
        ("invalid text property 'text' on class 'CourseChunks': not a string", False),
        ("vector lengths don't match: 384 vs 10", False),
        ("no such prop with name 'extra' found in class 'CourseChunks'", False),
        ("", False),
    ],
)
def test_which_batch_rejections_are_retried(message, transient):
    assert is_transient_batch_error(message) is transient


# -- object layout ---------------------------------------------------------------------------


def test_objects_round_trip_to_the_same_chunk():
    chunk = Chunk.make(
        "Heaps keep the minimum on top.",
        "dir/w2.md",
        "Week 2 > Heaps",
        "course",
        course_id="c1",
        doc_type="markdown",
        file_hash="sha-1",
    )
    props = object_properties("c1", "dir/w2.md", "sha-1", chunk, object_uuid("c1", chunk))
    assert chunk_from(props) == chunk
    assert props["lexical"] == "heaps keep minimum top"


def test_objects_have_the_layout_llamaindex_writes():
    """What LlamaIndex's WeaviateVectorStore.add wrote for the same chunk, to the byte:
    collections written through it keep working, and LlamaIndex can read ours."""
    pytest.importorskip("llama_index.vector_stores.weaviate")
    from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode
    from llama_index.vector_stores.weaviate.utils import get_data_object

    chunk = Chunk.make(
        '二叉树 "quoted" \\ and\nnewline',
        "notes/a b.pdf",
        "page 3",
        "course",
        course_id="csc3100",
        doc_type="pdf",
        file_hash="sha-9",
    )
    uuid = object_uuid("csc3100", chunk)
    ours = object_properties("csc3100", "notes/a b.pdf", "sha-9", chunk, uuid)
    metadata = {
        key: ours[key]
        for key in (
            "course_id",
            "source_file",
            "locator",
            "doc_type",
            "content_hash",
            "chunk_id",
            "origin",
            "lexical",
            "index_format",
        )
    }
    node = TextNode(
        id_=uuid,
        text=chunk.text,
        embedding=[0.5, 0.5],
        metadata=metadata,
        excluded_embed_metadata_keys=list(metadata),
        excluded_llm_metadata_keys=list(metadata),
        relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id="csc3100/notes/a b.pdf")},
    )
    theirs = get_data_object(node=node, text_key="text")
    assert list(ours.items()) == list(theirs.properties.items())
    assert str(theirs.uuid) == uuid
