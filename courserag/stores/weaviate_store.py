"""The Weaviate course store: one collection for every course, every read filtered by course_id.

Used when WEAVIATE_URL is set. We supply the vectors (the collection has no vectorizer) and
a `lexical` property holding `courserag.textnorm.word_tokens(text)` joined by spaces, with
whitespace tokenization and no stopword preset, so that Weaviate's BM25 sees exactly the
tokens the local store's BM25 sees, in English and Chinese.

Writes go through LlamaIndex's `WeaviateVectorStore.add`, which stores each node as: the
text under `text`, every metadata key as a top-level property, and `_node_content` (the
node as JSON), `_node_type`, `document_id`, `doc_id`, `ref_doc_id` (LlamaIndex's
bookkeeping). The collection schema below declares all of them, so the store also works on
a Weaviate with auto-schema disabled; the object UUID is the node id, which we set to
`generate_uuid5(chunk.id, course_id)`.

The client connects lazily, on first use. Every call runs under a deadline: the client
retries UNAVAILABLE gRPC calls with exponential backoff for a minute (ten for batches),
which is right for a cluster that is scaling but not for a study assistant whose Weaviate
went away, so past the deadline we close the client (which ends those retries) and raise
`StoreUnavailableError`. The next call reconnects. No message names the API key.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence, TypeVar
from urllib.parse import urlsplit

import numpy as np

from courserag.errors import ConfigError, StoreUnavailableError
from courserag.records import Chunk, ScoredChunk
from courserag.settings import Settings, secret
from courserag.stores.base import CourseHits, FileRecord, StoreHealth, separate_search
from courserag.textnorm import word_tokens

logger = logging.getLogger(__name__)

T = TypeVar("T")

API_KEY_VARIABLE = "WEAVIATE_API_KEY"
CLOUD_SUFFIXES = (".weaviate.cloud", ".weaviate.network", ".weaviate.io")
DEFAULT_GRPC_PORT = 50051

# Objects per batch request: one LlamaIndex `add` call each, sent as soon as it is full.
INSERT_GROUP = 100
# Write attempts per group; the pauses between them (seconds).
INSERT_ATTEMPTS = 3
RETRY_PAUSES = (0.5, 1.5)
# Page size when listing the objects of one file (offset paging stays under Weaviate's
# QUERY_MAXIMUM_RESULTS of 10,000; a file has at most Limits.max_chunks_per_file chunks).
PAGE = 1000
# Most files per course `files()` reports (aggregate group-by limit).
MAX_FILES = 10000
# Ids per delete-by-id request.
DELETE_IDS = 500

# Properties a search returns (not `lexical` or LlamaIndex's `_node_content`: not needed).
RETURN_PROPERTIES = ["text", "course_id", "source_file", "locator", "doc_type", "content_hash", "chunk_id", "origin"]

# Words in an error that mean "try again" rather than "this object is wrong".
_TRANSIENT = ("timeout", "timed out", "deadline", "unavailable", "temporarily", "connection", "reset",
              "not ready", "read-only", "readonly", "429", "502", "503", "504", "too many")


def _text(name: str, description: str, *, tokenization: str | None = None, filterable: bool = False,
          searchable: bool = False) -> dict:
    prop = {
        "name": name,
        "dataType": ["text"],
        "description": description,
        "indexFilterable": filterable,
        "indexSearchable": searchable,
    }
    if tokenization is not None:
        prop["tokenization"] = tokenization
    return prop


def collection_schema(name: str) -> dict:
    """The collection as sent to POST /v1/schema (Weaviate fills in the other defaults)."""
    return {
        "class": name,
        "description": "Course chunks for courserag; vectors are supplied by the app.",
        "vectorizer": "none",
        "vectorIndexType": "hnsw",
        "vectorIndexConfig": {"distance": "cosine"},
        # k1/b as in courserag.lexical; no stopword preset: word_tokens already dropped ours.
        "invertedIndexConfig": {"bm25": {"k1": 1.2, "b": 0.75}, "stopwords": {"preset": "none"}},
        "properties": [
            _text("text", "The chunk text (LlamaIndex text_key).", tokenization="word", searchable=True),
            _text("lexical", "word_tokens(text) joined by spaces, for BM25.", tokenization="whitespace", searchable=True),
            _text("course_id", "The course the chunk belongs to.", tokenization="field", filterable=True),
            _text("source_file", "Path of the file relative to the course folder.", tokenization="field", filterable=True),
            _text("locator", "Page, slide, heading path, cell or lines."),
            _text("doc_type", "Kind of document.", tokenization="field", filterable=True),
            _text("content_hash", "SHA-256 of the source file.", tokenization="field", filterable=True),
            _text("chunk_id", "courserag chunk id.", tokenization="field", filterable=True),
            _text("origin", "course or upload.", tokenization="field", filterable=True),
            # LlamaIndex's bookkeeping (llama_index.core.vector_stores.utils.node_to_metadata_dict).
            _text("_node_content", "The LlamaIndex node as JSON."),
            _text("_node_type", "LlamaIndex node class."),
            _text("document_id", "LlamaIndex ref doc id.", tokenization="field", filterable=True),
            _text("doc_id", "LlamaIndex ref doc id.", tokenization="field", filterable=True),
            _text("ref_doc_id", "LlamaIndex ref doc id (course_id/source_file).", tokenization="field", filterable=True),
        ],
    }


@dataclass(frozen=True)
class Endpoint:
    """Where the store connects: the REST URL as shown to people, and both host/ports."""

    display_url: str
    http_host: str
    http_port: int
    http_secure: bool
    grpc_host: str
    grpc_port: int
    grpc_secure: bool
    cloud: bool


def parse_endpoint(url: str, grpc_url: str | None = None) -> Endpoint:
    """WEAVIATE_URL (and WEAVIATE_GRPC_URL) as hosts and ports; ConfigError names a bad value."""
    raw = url.strip()
    parts = urlsplit(raw if "://" in raw else f"https://{raw}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"WEAVIATE_URL must be an http(s) URL such as http://localhost:8080, but got {url!r}")
    secure = parts.scheme == "https"
    try:
        port = parts.port or (443 if secure else 80)
    except ValueError as exc:
        raise ConfigError(f"WEAVIATE_URL has an invalid port: {url!r}") from exc
    host = parts.hostname
    cloud = secure and host.endswith(CLOUD_SUFFIXES)
    display = f"{parts.scheme}://{host}" + ("" if parts.port is None else f":{parts.port}")
    if grpc_url:
        graw = grpc_url.strip()
        gparts = urlsplit(graw if "://" in graw else f"//{graw}")
        if gparts.scheme not in ("", "http", "https", "grpc", "grpcs") or not gparts.hostname:
            raise ConfigError(f"WEAVIATE_GRPC_URL must look like host:port or grpc://host:port, but got {grpc_url!r}")
        grpc_secure = gparts.scheme in ("https", "grpcs") or (gparts.scheme == "" and secure)
        try:
            grpc_port = gparts.port or (443 if grpc_secure else DEFAULT_GRPC_PORT)
        except ValueError as exc:
            raise ConfigError(f"WEAVIATE_GRPC_URL has an invalid port: {grpc_url!r}") from exc
        grpc_host = gparts.hostname
    elif cloud:
        # Weaviate Cloud serves gRPC on grpc-<cluster host>:443 (as connect_to_weaviate_cloud does).
        grpc_host, grpc_port, grpc_secure = f"grpc-{host}", 443, True
    else:
        grpc_host, grpc_port, grpc_secure = host, DEFAULT_GRPC_PORT, secure
    return Endpoint(display, host, port, secure, grpc_host, grpc_port, grpc_secure, cloud)


def _chunk_from(props: dict) -> Chunk:
    return Chunk(
        id=str(props.get("chunk_id") or ""),
        text=str(props.get("text") or ""),
        source=str(props.get("source_file") or ""),
        locator=str(props.get("locator") or ""),
        origin=props.get("origin") or "course",
        course_id=props.get("course_id"),
        doc_type=str(props.get("doc_type") or ""),
        file_hash=str(props.get("content_hash") or ""),
    )


def _is_transient(message: str) -> bool:
    lowered = message.lower()
    return any(word in lowered for word in _TRANSIENT)


class _DeadlineExceeded(Exception):
    pass


class WeaviateCourseStore:
    """CourseStore on a Weaviate server or Weaviate Cloud (weaviate-client v4, gRPC + REST)."""

    name = "weaviate"

    def __init__(self, settings: Settings, embedder_dim: int | None = None):
        if not settings.weaviate_url:
            raise ConfigError("WEAVIATE_URL is not set, so the Weaviate store cannot be used")
        if settings.weaviate_timeout_s <= 0:
            raise ConfigError(f"WEAVIATE_TIMEOUT_S must be > 0, but got {settings.weaviate_timeout_s}")
        self.settings = settings
        self.dim = embedder_dim
        self.endpoint = parse_endpoint(settings.weaviate_url, settings.weaviate_grpc_url)
        self.collection_name = settings.weaviate_collection
        self._timeout = float(settings.weaviate_timeout_s)
        self._client: Any = None
        self._server_version = ""
        self._lock = threading.RLock()  # the client's lifecycle
        self._write_lock = threading.Lock()  # writes share client.batch state

    @property
    def url(self) -> str:
        return self.endpoint.display_url

    def __repr__(self) -> str:
        return f"WeaviateCourseStore({self.url!r}, collection={self.collection_name!r})"

    # -- connection -----------------------------------------------------------------------

    @property
    def _query_deadline(self) -> float:
        # The client's own query timeout plus a little: past it, the client is retrying.
        return self._timeout + 1.0

    @property
    def _insert_deadline(self) -> float:
        return self._timeout * 3 + 2.0

    @property
    def _connect_budget(self) -> float:
        # httpx's fixed 5 s connect timeout, /v1/meta, and the schema check and creation.
        return 5.0 + self._timeout * 3

    def _connect(self) -> Any:
        import weaviate
        from weaviate.classes.init import AdditionalConfig, Auth, Timeout

        ep = self.endpoint
        api_key = secret(API_KEY_VARIABLE, required=False)
        config = AdditionalConfig(
            timeout=Timeout(init=self._timeout, query=self._timeout, insert=self._timeout * 3)
        )
        auth = Auth.api_key(api_key) if api_key else None
        # skip_init_checks skips the client's PyPI version lookup (a call to pypi.org on
        # every connect); /v1/meta (which checks the API key) still runs, and we run the
        # gRPC health check ourselves below.
        if ep.cloud and api_key:
            client = weaviate.connect_to_weaviate_cloud(
                cluster_url=ep.http_host, auth_credentials=auth, additional_config=config, skip_init_checks=True
            )
        else:
            client = weaviate.connect_to_custom(
                http_host=ep.http_host,
                http_port=ep.http_port,
                http_secure=ep.http_secure,
                grpc_host=ep.grpc_host,
                grpc_port=ep.grpc_port,
                grpc_secure=ep.grpc_secure,
                auth_credentials=auth,
                additional_config=config,
                skip_init_checks=True,
            )
        try:
            connection = client._connection
            self._server_version = str(connection.server_version)
            # The client's own start-up gRPC health check (one call, no retries): a wrong
            # gRPC host or port fails here, clearly, instead of in a retrying query.
            ping = getattr(connection, "_ping_grpc", None)
            if ping is not None:
                ping("sync")
            self._ensure_collection(client)
        except BaseException:
            client.close()
            raise
        logger.info("connected to Weaviate at %s (collection %s)", self.url, self.collection_name)
        return client

    def _ensure_collection(self, client: Any) -> None:
        """Create the collection if missing; add properties an older schema lacks."""
        from weaviate.exceptions import UnexpectedStatusCodeError

        name = self.collection_name
        wanted = collection_schema(name)
        if not client.collections.exists(name):
            try:
                client.collections.create_from_dict(wanted)
                logger.info("created Weaviate collection %s", name)
                return
            except UnexpectedStatusCodeError as exc:
                # Another process may have created it in the meantime.
                if not client.collections.exists(name):
                    raise
                logger.debug("collection %s appeared concurrently: %s", name, exc.status_code)
        from weaviate.classes.config import DataType, Property, Tokenization

        collection = client.collections.get(name)
        have = {p.name for p in collection.config.get().properties}
        for prop in wanted["properties"]:
            if prop["name"] in have:
                continue
            tokenization = prop.get("tokenization")
            collection.config.add_property(
                Property(
                    name=prop["name"],
                    data_type=DataType.TEXT,
                    description=prop["description"],
                    index_filterable=prop["indexFilterable"],
                    index_searchable=prop["indexSearchable"],
                    tokenization=Tokenization(tokenization) if tokenization else None,
                )
            )
            logger.info("added property %s to Weaviate collection %s", prop["name"], name)

    def _ensure_client(self) -> Any:
        with self._lock:
            if self._client is not None:
                return self._client
        # Connect without holding the lock, so that a caller whose deadline passed can
        # still drop the client instead of waiting for a hung connection attempt.
        client = self._connect()
        with self._lock:
            if self._client is None:
                self._client = client
                return client
            winner = self._client
        client.close()  # another thread connected first
        return winner

    def _drop_client(self) -> None:
        """Close the client (ending any retry loop still running in its threads)."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            try:
                client.close()
            except Exception as exc:  # noqa: BLE001 - closing a broken client is best effort
                logger.debug("closing the Weaviate client failed: %s", self._safe(str(exc)))

    def close(self) -> None:
        """Close the connection; the next call reconnects."""
        self._drop_client()

    def __enter__(self) -> "WeaviateCourseStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- running calls ----------------------------------------------------------------------

    def _run(self, what: str, fn: Callable[[Any], T], deadline: float) -> T:
        """fn(client) under a deadline; connecting first (under its own deadline) if needed."""
        with self._lock:
            client = self._client
        if client is None:
            client = self._call("connect", self._ensure_client, self._connect_budget)
        return self._call(what, lambda: fn(client), deadline)

    def _call(self, what: str, fn: Callable[[], T], budget: float) -> T:
        """fn() in a daemon thread; past `budget` seconds the client is closed and we raise."""
        box: dict[str, Any] = {}
        done = threading.Event()

        def target() -> None:
            try:
                box["value"] = fn()
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                box["error"] = exc
            finally:
                done.set()

        threading.Thread(target=target, name=f"weaviate-{what}", daemon=True).start()
        if not done.wait(budget):
            self._drop_client()
            raise StoreUnavailableError(
                f"Weaviate at {self.url} did not answer within {budget:.0f} s ({what}): it is down, unreachable or overloaded"
            ) from _DeadlineExceeded(what)
        if "error" in box:
            raise self._translate(box["error"], what)
        return box["value"]

    def _safe(self, message: str) -> str:
        """The message with the API key (if any) masked."""
        key = secret(API_KEY_VARIABLE, required=False)
        if key:
            message = message.replace(key, "***")
        return message

    def _translate(self, exc: BaseException, what: str) -> BaseException:
        """Any failure of the client as a StoreUnavailableError naming the URL, never the key."""
        if isinstance(exc, (StoreUnavailableError, ConfigError, ValueError)) and not _is_client_error(exc):
            return exc
        from weaviate.exceptions import (
            InsufficientPermissionsError,
            UnexpectedStatusCodeError,
            WeaviateClosedClientError,
            WeaviateConnectionError,
            WeaviateGRPCUnavailableError,
            WeaviateStartUpError,
            WeaviateTimeoutError,
        )

        text = self._safe(str(exc))
        lowered = text.lower()
        status = getattr(exc, "status_code", None) if isinstance(exc, UnexpectedStatusCodeError) else None
        if status == 401 or any(w in lowered for w in ("unauthenticated", "unauthorized", "invalid api key", "anonymous access")):
            message = (
                f"Weaviate at {self.url} rejected the credentials (401 Unauthorized): "
                f"check {API_KEY_VARIABLE}"
            )
            self._drop_client()
        elif isinstance(exc, WeaviateGRPCUnavailableError):
            ep = self.endpoint
            message = (
                f"Weaviate at {self.url} answers on REST but not on gRPC at {ep.grpc_host}:{ep.grpc_port} "
                f"(set WEAVIATE_GRPC_URL if gRPC is elsewhere)"
            )
            self._drop_client()
        elif status == 403 or isinstance(exc, InsufficientPermissionsError):
            message = f"Weaviate at {self.url} refused {what} (403 Forbidden): the API key lacks permissions"
        elif isinstance(exc, (WeaviateStartUpError, WeaviateConnectionError, WeaviateClosedClientError, OSError)) or (
            "connect" in lowered or "unavailable" in lowered
        ):
            message = f"cannot reach Weaviate at {self.url} ({what}): {_short(text)}"
            self._drop_client()
        elif isinstance(exc, WeaviateTimeoutError) or "deadline" in lowered or "timed out" in lowered:
            message = f"Weaviate at {self.url} timed out ({what}): {_short(text)}"
        else:
            message = f"Weaviate at {self.url} failed ({what}): {_short(text)}"
        key = secret(API_KEY_VARIABLE, required=False)
        cause = exc if not key or key not in repr(exc) else None
        error = StoreUnavailableError(message)
        error.__cause__ = cause
        error.__suppress_context__ = True
        return error

    def _collection(self, client: Any) -> Any:
        return client.collections.get(self.collection_name)

    @staticmethod
    def _course_filter(course_id: str) -> Any:
        from weaviate.classes.query import Filter

        return Filter.by_property("course_id").equal(course_id)

    def _file_filter(self, course_id: str, source: str) -> Any:
        from weaviate.classes.query import Filter

        return self._course_filter(course_id) & Filter.by_property("source_file").equal(source)

    # -- reads ------------------------------------------------------------------------------

    def files(self, course_id: str) -> dict[str, FileRecord]:
        from weaviate.classes.aggregate import GroupByAggregate, Metrics

        def op(client: Any) -> dict[str, FileRecord]:
            result = self._collection(client).aggregate.over_all(
                filters=self._course_filter(course_id),
                group_by=GroupByAggregate(prop="source_file", limit=MAX_FILES),
                total_count=True,
                return_metrics=Metrics("content_hash").text(
                    top_occurrences_count=True, top_occurrences_value=True, limit=2
                ),
            )
            out: dict[str, FileRecord] = {}
            for group in result.groups:
                source = str(group.grouped_by.value)
                tops = group.properties["content_hash"].top_occurrences
                # Two different hashes mean an interrupted replace: report no hash, so the
                # incremental build indexes the file again.
                file_hash = tops[0].value if len(tops) == 1 else ""
                out[source] = FileRecord(source, file_hash, int(group.total_count or 0))
            if len(result.groups) >= MAX_FILES:
                logger.warning("course %s has %d+ files in Weaviate; only %d are listed", course_id, MAX_FILES, MAX_FILES)
            return out

        return self._run("list files", op, self._query_deadline)

    def count(self, course_id: str) -> int:
        def op(client: Any) -> int:
            result = self._collection(client).aggregate.over_all(
                filters=self._course_filter(course_id), total_count=True
            )
            return int(result.total_count or 0)

        return self._run("count", op, self._query_deadline)

    def _query_vector(self, vector: np.ndarray) -> list[float]:
        flat = np.asarray(vector, dtype=np.float32).reshape(-1)
        if self.dim is not None and flat.shape[0] != self.dim:
            raise ValueError(f"query vector has {flat.shape[0]} dimensions, but the embedder has {self.dim}")
        return [float(x) for x in flat]

    def vector_search(self, course_id: str, vector: np.ndarray, k: int) -> list[ScoredChunk]:
        if k <= 0:
            return []
        query = self._query_vector(vector)

        def op(client: Any) -> list[ScoredChunk]:
            from weaviate.classes.query import MetadataQuery

            result = self._collection(client).query.near_vector(
                near_vector=query,
                limit=k,
                filters=self._course_filter(course_id),
                return_metadata=MetadataQuery(distance=True),
                return_properties=RETURN_PROPERTIES,
            )
            out = []
            for obj in result.objects:
                similarity = 1.0 - float(obj.metadata.distance)  # cosine distance = 1 - cos
                out.append(
                    ScoredChunk(_chunk_from(obj.properties), vector=similarity, score=similarity,
                                store=self.name, signals=("vector",))
                )
            return out

        return self._run("vector search", op, self._query_deadline)

    @staticmethod
    def _query_text(tokens: Sequence[str]) -> str:
        # Whitespace tokenization on the server splits this back into the same tokens.
        unique = dict.fromkeys(part for token in tokens for part in str(token).split())
        return " ".join(unique)

    def lexical_search(self, course_id: str, tokens: Sequence[str], k: int) -> list[ScoredChunk]:
        query = self._query_text(tokens)
        if k <= 0 or not query:
            return []

        def op(client: Any) -> list[ScoredChunk]:
            from weaviate.classes.query import MetadataQuery

            result = self._collection(client).query.bm25(
                query=query,
                query_properties=["lexical"],
                limit=k,
                filters=self._course_filter(course_id),
                return_metadata=MetadataQuery(score=True),
                return_properties=RETURN_PROPERTIES,
            )
            out = []
            for obj in result.objects:
                score = float(obj.metadata.score or 0.0)
                if score > 0:
                    out.append(
                        ScoredChunk(_chunk_from(obj.properties), lexical=score, score=score,
                                    store=self.name, signals=("lexical",))
                    )
            return out

        return self._run("lexical search", op, self._query_deadline)

    def search(self, course_id: str, vector: np.ndarray, tokens: Sequence[str], k: int) -> CourseHits:
        """Separate vector and BM25 queries (fused by our ranker), or, with
        WEAVIATE_SEARCH=hybrid, Weaviate's native hybrid whose fused score is the lexical signal."""
        if self.settings.weaviate_search != "hybrid":
            return separate_search(self, course_id, vector, tokens, k)
        fused = self.hybrid_search(course_id, tokens, vector, k)
        return CourseHits([], [replace(h, lexical=h.score) for h in fused], self.name)

    def hybrid_search(
        self,
        course_id: str,
        text_tokens: Sequence[str],
        vector: np.ndarray,
        k: int,
        alpha: float | None = None,
    ) -> list[ScoredChunk]:
        """Weaviate's native hybrid (relativeScoreFusion): alpha=1 is pure vector, 0 pure BM25.

        `score` is Weaviate's fused score; `vector` is the cosine similarity, computed from
        the returned object vector; `lexical` stays 0 (Weaviate does not report it).
        """
        if k <= 0:
            return []
        alpha = self.settings.weaviate_hybrid_alpha if alpha is None else float(alpha)
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1], but got {alpha}")
        query_vector = self._query_vector(vector)
        query = self._query_text(text_tokens)
        unit = np.asarray(query_vector, dtype=np.float32)
        unit = unit / (np.linalg.norm(unit) or 1.0)

        def op(client: Any) -> list[ScoredChunk]:
            from weaviate.classes.query import HybridFusion, MetadataQuery

            result = self._collection(client).query.hybrid(
                query=query or None,
                vector=query_vector,
                alpha=alpha if query else 1.0,
                query_properties=["lexical"],
                fusion_type=HybridFusion.RELATIVE_SCORE,
                limit=k,
                filters=self._course_filter(course_id),
                return_metadata=MetadataQuery(score=True),
                return_properties=RETURN_PROPERTIES,
                include_vector=True,
            )
            out = []
            for obj in result.objects:
                stored = obj.vector.get("default") if isinstance(obj.vector, dict) else None
                similarity = 0.0
                if stored is not None:
                    v = np.asarray(stored, dtype=np.float32)
                    similarity = float(v @ unit / (np.linalg.norm(v) or 1.0))
                out.append(
                    ScoredChunk(_chunk_from(obj.properties), vector=similarity, score=float(obj.metadata.score or 0.0),
                                store=self.name, signals=("hybrid",))
                )
            return out

        return self._run("hybrid search", op, self._query_deadline)

    # -- writes -----------------------------------------------------------------------------

    def _uuid(self, course_id: str, chunk: Chunk) -> str:
        from weaviate.util import generate_uuid5

        # The chunk id already hashes the course, but a chunk built without a course id
        # must not collide with the same text in another course: namespace it.
        return generate_uuid5(chunk.id, course_id)

    def _nodes(self, course_id: str, source: str, file_hash: str, chunks: Sequence[Chunk], vectors: np.ndarray) -> list:
        from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

        nodes = []
        for chunk, vector in zip(chunks, vectors):
            metadata = {
                "course_id": course_id,
                "source_file": source,
                "locator": chunk.locator,
                "doc_type": chunk.doc_type,
                "content_hash": file_hash,
                "chunk_id": chunk.id,
                "origin": chunk.origin,
                "lexical": " ".join(word_tokens(chunk.text)),
            }
            nodes.append(
                TextNode(
                    id_=self._uuid(course_id, chunk),
                    text=chunk.text,
                    embedding=[float(x) for x in vector],
                    metadata=metadata,
                    # Our metadata is for filtering and citing, not for an LLM or an embedder.
                    excluded_embed_metadata_keys=list(metadata),
                    excluded_llm_metadata_keys=list(metadata),
                    relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=f"{course_id}/{source}")},
                )
            )
        return nodes

    def _add_nodes(self, client: Any, nodes: list) -> list[str]:
        """One LlamaIndex add of `nodes`; returns the error messages of rejected objects."""
        from llama_index.vector_stores.weaviate import WeaviateVectorStore

        # fixed_size(batch_size=len(nodes)) sends the request as soon as the last node is
        # queued (dynamic batching waits up to a second for more objects).
        batch = client.batch.fixed_size(batch_size=len(nodes), concurrent_requests=1)
        try:
            store = WeaviateVectorStore(
                weaviate_client=client,
                index_name=self.collection_name,
                text_key="text",
                client_kwargs={"custom_batch": batch},
            )
        except BaseException:
            with batch:  # stops the batch's background threads
                pass
            raise
        store.add(nodes)
        return [self._safe(str(err.message)) for err in client.batch.failed_objects]

    def _insert(self, course_id: str, source: str, nodes: list) -> None:
        for start in range(0, len(nodes), INSERT_GROUP):
            group = nodes[start : start + INSERT_GROUP]
            for attempt in range(INSERT_ATTEMPTS):
                last = attempt == INSERT_ATTEMPTS - 1
                try:
                    errors = self._run("insert", lambda client: self._add_nodes(client, group), self._insert_deadline)
                except StoreUnavailableError as exc:
                    if last or isinstance(exc.__cause__, _DeadlineExceeded):
                        raise StoreUnavailableError(
                            f"cannot index {source!r} of course {course_id!r}: {exc}"
                        ) from exc
                    logger.warning("indexing %s of %s failed, retrying: %s", source, course_id, exc)
                    time.sleep(RETRY_PAUSES[attempt])
                    continue
                if not errors:
                    break
                if last or not all(_is_transient(e) for e in errors):
                    raise StoreUnavailableError(
                        f"Weaviate at {self.url} rejected {len(errors)} of {len(group)} chunks of {source!r} "
                        f"(course {course_id!r}): {_short(errors[0])}"
                    )
                logger.warning("Weaviate rejected %d chunks of %s, retrying: %s", len(errors), source, _short(errors[0]))
                time.sleep(RETRY_PAUSES[attempt])

    def _file_uuids(self, course_id: str, source: str) -> set[str]:
        def op(client: Any) -> set[str]:
            collection = self._collection(client)
            found: set[str] = set()
            offset = 0
            while True:
                page = collection.query.fetch_objects(
                    filters=self._file_filter(course_id, source), limit=PAGE, offset=offset, return_properties=[]
                )
                found.update(str(obj.uuid) for obj in page.objects)
                if len(page.objects) < PAGE:
                    return found
                offset += PAGE

        return self._run("list chunks", op, self._query_deadline)

    def _delete_ids(self, course_id: str, uuids: Sequence[str]) -> None:
        from weaviate.classes.query import Filter

        ids = list(uuids)
        for start in range(0, len(ids), DELETE_IDS):
            part = ids[start : start + DELETE_IDS]

            def op(client: Any, part=part) -> None:
                result = self._collection(client).data.delete_many(
                    where=self._course_filter(course_id) & Filter.by_id().contains_any(part)
                )
                if result.failed:
                    raise StoreUnavailableError(
                        f"Weaviate at {self.url} could not delete {result.failed} chunks of course {course_id!r}"
                    )

            self._run("delete", op, self._insert_deadline)

    def _delete_where(self, what: str, where: Any) -> None:
        """delete_many until nothing matches (Weaviate deletes at most QUERY_MAXIMUM_RESULTS a call)."""

        def op(client: Any) -> int:
            result = self._collection(client).data.delete_many(where=where)
            if result.failed:
                raise StoreUnavailableError(f"Weaviate at {self.url} could not delete {result.failed} chunks ({what})")
            return int(result.successful)

        for _ in range(10000):
            if self._run(what, op, self._insert_deadline) == 0:
                return

    def replace_file(
        self,
        course_id: str,
        source: str,
        file_hash: str,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
    ) -> None:
        """Insert the new chunks, then delete the file's chunks that are not among them.

        Weaviate has no transactions; this order means a search never sees the file missing,
        and a failed insert leaves the previous version searchable (its chunks are deleted
        only after every new chunk was accepted). Unchanged chunks keep their UUID and are
        overwritten in place.
        """
        if len(chunks) == 0:
            self.delete_file(course_id, source)
            return
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim == 1 and len(chunks) == 1:
            matrix = matrix.reshape(1, -1)
        if matrix.ndim != 2 or matrix.shape[0] != len(chunks):
            given = matrix.shape[0] if matrix.ndim else 0
            raise ValueError(f"{len(chunks)} chunks but {given} vectors for {source}")
        if self.dim is not None and matrix.shape[1] != self.dim:
            raise ValueError(f"vectors for {source} have {matrix.shape[1]} dimensions, but the embedder has {self.dim}")
        nodes = self._nodes(course_id, source, file_hash, chunks, matrix)
        new_ids = {node.node_id for node in nodes}
        with self._write_lock:
            try:
                old_ids = self._file_uuids(course_id, source)
                try:
                    self._insert(course_id, source, nodes)
                except StoreUnavailableError:
                    # Best effort: remove what only the new version had, so the old one stays whole.
                    try:
                        self._delete_ids(course_id, sorted(new_ids - old_ids))
                    except StoreUnavailableError as cleanup:
                        logger.warning("could not clean up a failed replace of %s: %s", source, cleanup)
                    raise
                stale = sorted(old_ids - new_ids)
                if stale:
                    self._delete_ids(course_id, stale)
            except StoreUnavailableError as exc:
                if repr(source) in str(exc):
                    raise
                raise StoreUnavailableError(f"cannot index {source!r} of course {course_id!r}: {exc}") from exc
        logger.info("indexed %s of course %s in Weaviate: %d chunks (%d replaced)", source, course_id, len(nodes), len(stale))

    def delete_file(self, course_id: str, source: str) -> None:
        with self._write_lock:
            self._delete_where("delete file", self._file_filter(course_id, source))

    def delete_course(self, course_id: str) -> None:
        with self._write_lock:
            self._delete_where("delete course", self._course_filter(course_id))

    # -- health -----------------------------------------------------------------------------

    def health(self) -> StoreHealth:
        """Whether Weaviate answers (REST and gRPC, with these credentials); never raises."""
        try:
            def op(client: Any) -> int:
                if not client.is_ready():
                    raise StoreUnavailableError(f"Weaviate at {self.url} is not ready")
                return int(self._collection(client).aggregate.over_all(total_count=True).total_count or 0)

            total = self._run("health check", op, self._query_deadline)
            version = f", Weaviate {self._server_version}" if self._server_version else ""
            return StoreHealth(self.name, True, f"{self.url}: collection {self.collection_name}, {total} chunks{version}")
        except Exception as exc:  # noqa: BLE001 - health must not raise
            return StoreHealth(self.name, False, self._safe(str(exc)) or type(exc).__name__)


def _is_client_error(exc: BaseException) -> bool:
    """weaviate-client errors that subclass ValueError still need translating."""
    return type(exc).__module__.startswith(("weaviate", "grpc", "httpx", "httpcore"))


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
