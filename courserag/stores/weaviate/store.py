"""The Weaviate course store: one collection for every course, every read filtered by course_id.

Used when WEAVIATE_URL is set. The collection and the object layout are in schema.py, the
connection (lazy, under deadlines, failures as StoreUnavailableError) in client.py, the
queries in queries.py; this module is the CourseStore itself: reads, searches and writes.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from dataclasses import replace
from typing import Any, Callable, Iterator, Sequence, TypeVar

import numpy as np

from courserag.errors import StoreUnavailableError
from courserag.records import Chunk, ScoredChunk
from courserag.retrieval.sentence_vectors import INDEX_FORMAT, SentenceVectors, index_space
from courserag.stores.base import CourseHits, FileRecord, StoreHealth, separate_search
from courserag.stores.weaviate import queries
from courserag.stores.weaviate.batch import WriteContext, insert_in_groups, send_batch
from courserag.stores.weaviate.client import WeaviateConnection, mask
from courserag.stores.weaviate.config import WeaviateConfig
from courserag.stores.weaviate.endpoint import parse_endpoint
from courserag.stores.weaviate.schema import (
    WeaviateObject,
    course_filter,
    ensure_collection,
    file_filter,
    file_objects,
    sentence_collection,
    sentence_objects,
)
from courserag.stores.weaviate.stage import WeaviateStage

logger = logging.getLogger(__name__)

T = TypeVar("T")

# Page size when listing the objects of one file (offset paging stays under Weaviate's
# QUERY_MAXIMUM_RESULTS of 10,000; a file has at most Limits.max_chunks_per_file chunks).
PAGE = 1000
# Most files per course `files()` reports (aggregate group-by limit).
MAX_FILES = 10000
# Ids per delete-by-id request.
DELETE_IDS = 500


class WeaviateCourseStore:
    """CourseStore on a Weaviate server or Weaviate Cloud (weaviate-client v4, gRPC + REST).

    Nothing connects here: the first call does. `search` is a vector and a BM25 query, or
    Weaviate's native hybrid when the config says `search="hybrid"`.
    """

    name = "weaviate"

    def __init__(self, config: WeaviateConfig, embedder_dim: int | None = None):
        self.config = config
        self.dim = embedder_dim
        collection = config.collection
        self._conn = WeaviateConnection(
            parse_endpoint(config.url, config.grpc_url),
            config.timeout_s,
            prepare=lambda client: ensure_collection(client, collection),
        )
        self._write_lock = threading.Lock()  # replace_file's read-insert-delete must not interleave

    @property
    def url(self) -> str:
        return self._conn.url

    def __repr__(self) -> str:
        return f"WeaviateCourseStore({self.url!r}, collection={self.config.collection!r})"

    def close(self) -> None:
        """Close the connection; the next call reconnects."""
        self._conn.close()

    def __enter__(self) -> "WeaviateCourseStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- helpers ----------------------------------------------------------------------------

    def _query(self, what: str, op: Callable[[Any], T]) -> T:
        return self._conn.run(what, op, self._conn.deadlines.query)

    def _write(self, what: str, op: Callable[[Any], T]) -> T:
        return self._conn.run(what, op, self._conn.deadlines.write)

    def _collection(self, client: Any, sentences: bool = False) -> Any:
        name = self.config.collection
        return client.collections.get(sentence_collection(name) if sentences else name)

    def _query_vector(self, vector: np.ndarray) -> list[float]:
        flat = np.asarray(vector, dtype=np.float32).reshape(-1)
        if self.dim is not None and flat.shape[0] != self.dim:
            raise ValueError(f"query vector has {flat.shape[0]} dimensions, but the embedder has {self.dim}")
        return flat.tolist()

    @staticmethod
    def _query_text(tokens: Sequence[str]) -> str:
        # Whitespace tokenization on the server splits this back into the same tokens.
        unique = dict.fromkeys(part for token in tokens for part in str(token).split())
        return " ".join(unique)

    # -- reads ------------------------------------------------------------------------------

    def files(self, course_id: str) -> dict[str, FileRecord]:
        from weaviate.classes.aggregate import GroupByAggregate, Metrics

        def op(client: Any) -> dict[str, FileRecord]:
            result = self._collection(client).aggregate.over_all(
                filters=course_filter(course_id),
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
                logger.warning(
                    "course %s has %d+ files in Weaviate; only %d are listed", course_id, MAX_FILES, MAX_FILES
                )
            return out

        return self._query("list files", op)

    def count(self, course_id: str) -> int:
        def op(client: Any) -> int:
            result = self._collection(client).aggregate.over_all(filters=course_filter(course_id), total_count=True)
            return int(result.total_count or 0)

        return self._query("count", op)

    def vector_search(self, course_id: str, vector: np.ndarray, k: int) -> list[ScoredChunk]:
        if k <= 0:
            return []
        query = self._query_vector(vector)
        return self._query(
            "vector search",
            lambda client: queries.near_vector(self._collection(client), course_id, query, k, self.name),
        )

    def lexical_search(self, course_id: str, tokens: Sequence[str], k: int) -> list[ScoredChunk]:
        query = self._query_text(tokens)
        if k <= 0 or not query:
            return []
        return self._query(
            "lexical search", lambda client: queries.bm25(self._collection(client), course_id, query, k, self.name)
        )

    def search(self, course_id: str, vector: np.ndarray, tokens: Sequence[str], k: int) -> CourseHits:
        """Separate vector and BM25 queries (fused by our ranker), or, with
        WEAVIATE_SEARCH=hybrid, Weaviate's native hybrid whose fused score is the lexical signal."""
        if self.config.search != "hybrid":
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
        alpha = self.config.hybrid_alpha if alpha is None else float(alpha)
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1], but got {alpha}")
        query_vector = self._query_vector(vector)
        query = self._query_text(text_tokens)

        def op(client: Any) -> list[ScoredChunk]:
            return queries.hybrid(self._collection(client), course_id, query, query_vector, alpha, k, self.name)

        return self._query("hybrid search", op)

    # -- writes -----------------------------------------------------------------------------

    def replace_file(
        self,
        course_id: str,
        source: str,
        file_hash: str,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        sentences: SentenceVectors | None = None,
    ) -> None:
        """Insert the new chunks, then delete the file's chunks that are not among them.

        The sentence vectors go to the sentence collection the same way (new ones first,
        then the file's stale ones), after the chunks: a search in between finds new chunks
        without sentences, which rank by their chunk vector.

        Weaviate has no transactions; this order means a search never sees the file missing,
        and a failed insert leaves the previous version searchable (its chunks are deleted
        only after every new chunk was accepted). Unchanged chunks keep their UUID and are
        overwritten in place. Every StoreUnavailableError names the file and the course.
        """
        if len(chunks) == 0:
            self.delete_file(course_id, source)
            return
        objects = file_objects(course_id, source, file_hash, chunks, self._checked_vectors(source, chunks, vectors))
        sentences = sentences if sentences is not None else SentenceVectors.empty(len(objects[0].vector))
        if len(sentences) and int(sentences.owners.max()) >= len(chunks):
            raise ValueError(f"sentence owners beyond the {len(chunks)} chunks of {source}")
        parts = [(False, objects), (True, sentence_objects(course_id, source, chunks, sentences))]
        with self._write_lock:
            stale: list[tuple[bool, list[str]]] = []
            for in_sentences, new in parts:
                new_ids = {obj.uuid for obj in new}
                with self._indexing(course_id, source):
                    old_ids = self._file_uuids(course_id, source, in_sentences)
                self._insert_or_roll_back(course_id, source, new, new_ids - old_ids, in_sentences)
                stale.append((in_sentences, sorted(old_ids - new_ids)))
            for in_sentences, ids in stale:
                if ids:
                    with self._indexing(course_id, source):
                        self._delete_ids(course_id, ids, in_sentences)
        logger.info(
            "indexed %s of course %s in Weaviate: %d chunks (%d replaced)",
            source,
            course_id,
            len(objects),
            len(stale[0][1]),
        )

    def stage(self, course_id: str) -> WeaviateStage:
        """A rebuild of the course: every file is replaced in place (new chunks first, then
        the stale ones deleted), and the commit removes the files that were not put. No
        moment of the rebuild finds the course empty."""
        return WeaviateStage(self, course_id, set(self.files(course_id)))

    def best_sentences(self, course_id: str, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        """One vector query on the sentence collection, filtered to the candidates' chunks:
        the server scores only their sentences; the best per chunk is kept."""
        ids = list(dict.fromkeys(chunk_ids))
        if not ids:
            return {}
        query = self._query_vector(vector)

        def op(client: Any) -> dict[str, float]:
            return queries.best_sentences(self._collection(client, sentences=True), course_id, ids, query)

        return self._query("sentence scores", op)

    def index_model(self, course_id: str) -> str | None:
        """The collection's model (it is named after it) when the course has chunks in it,
        marked as another space when some chunks were written in an older index format."""
        total = self.count(course_id)
        if not total:
            return None
        model = self.config.embedding_model or None
        if model is None:
            return None

        def op(client: Any) -> int:
            from weaviate.classes.query import Filter

            current = course_filter(course_id) & Filter.by_property("index_format").equal(str(INDEX_FORMAT))
            return int(self._collection(client).aggregate.over_all(filters=current, total_count=True).total_count or 0)

        return index_space(model, INDEX_FORMAT if self._query("index format", op) == total else 1)

    def unreadable_files(self, course_id: str) -> frozenset[str]:
        return frozenset()  # Weaviate keeps its own storage consistent

    def _checked_vectors(self, source: str, chunks: Sequence[Chunk], vectors: np.ndarray) -> np.ndarray:
        """`vectors` as a float32 matrix with one row per chunk; ValueError names a mismatch."""
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim == 1 and len(chunks) == 1:
            matrix = matrix.reshape(1, -1)
        if matrix.ndim != 2 or matrix.shape[0] != len(chunks):
            given = matrix.shape[0] if matrix.ndim else 0
            raise ValueError(f"{len(chunks)} chunks but {given} vectors for {source}")
        if self.dim is not None and matrix.shape[1] != self.dim:
            raise ValueError(f"vectors for {source} have {matrix.shape[1]} dimensions, but the embedder has {self.dim}")
        return matrix

    @staticmethod
    @contextlib.contextmanager
    def _indexing(course_id: str, source: str) -> Iterator[None]:
        """Says which file and course a failing step of a replace was indexing."""
        try:
            yield
        except StoreUnavailableError as exc:
            raise StoreUnavailableError(f"cannot index {source!r} of course {course_id!r}: {exc}") from exc

    def _insert_or_roll_back(
        self, course_id: str, source: str, objects: list[WeaviateObject], only_new: set[str], sentences: bool = False
    ) -> None:
        """Insert every object; on failure, delete what only the new version had (best
        effort), so the old version stays whole, and raise."""
        try:
            self._insert(course_id, source, objects, sentences)
        except StoreUnavailableError:
            try:
                self._delete_ids(course_id, sorted(only_new), sentences)
            except StoreUnavailableError as cleanup:
                logger.warning("could not clean up a failed replace of %s: %s", source, cleanup)
            raise

    def _insert(self, course_id: str, source: str, objects: list[WeaviateObject], sentences: bool = False) -> None:
        def send(group: list[WeaviateObject]) -> list[str]:
            return self._write(
                "insert", lambda client: [mask(e) for e in send_batch(self._collection(client, sentences), group)]
            )

        insert_in_groups(send, objects, WriteContext(self.url, course_id, source))

    def _file_uuids(self, course_id: str, source: str, sentences: bool = False) -> set[str]:
        def op(client: Any) -> set[str]:
            collection = self._collection(client, sentences)
            found: set[str] = set()
            offset = 0
            while True:
                page = collection.query.fetch_objects(
                    filters=file_filter(course_id, source), limit=PAGE, offset=offset, return_properties=[]
                )
                found.update(str(obj.uuid) for obj in page.objects)
                if len(page.objects) < PAGE:
                    return found
                offset += PAGE

        return self._query("list chunks", op)

    def _delete_ids(self, course_id: str, uuids: Sequence[str], sentences: bool = False) -> None:
        from weaviate.classes.query import Filter

        ids = list(uuids)
        for start in range(0, len(ids), DELETE_IDS):
            part = ids[start : start + DELETE_IDS]

            def op(client: Any, part=part) -> None:
                result = self._collection(client, sentences).data.delete_many(
                    where=course_filter(course_id) & Filter.by_id().contains_any(part)
                )
                if result.failed:
                    raise StoreUnavailableError(
                        f"Weaviate at {self.url} could not delete {result.failed} chunks of course {course_id!r}"
                    )

            self._write("delete", op)

    def _delete_where(self, what: str, where: Any, sentences: bool = False) -> None:
        """delete_many until nothing matches (Weaviate deletes at most QUERY_MAXIMUM_RESULTS a call)."""

        def op(client: Any) -> int:
            result = self._collection(client, sentences).data.delete_many(where=where)
            if result.failed:
                raise StoreUnavailableError(f"Weaviate at {self.url} could not delete {result.failed} chunks ({what})")
            return int(result.successful)

        for _ in range(10000):
            if self._write(what, op) == 0:
                return

    def delete_file(self, course_id: str, source: str) -> None:
        with self._write_lock:
            self._delete_where("delete file", file_filter(course_id, source))
            self._delete_where("delete file", file_filter(course_id, source), sentences=True)

    def delete_course(self, course_id: str) -> None:
        with self._write_lock:
            self._delete_where("delete course", course_filter(course_id))
            self._delete_where("delete course", course_filter(course_id), sentences=True)

    # -- health -----------------------------------------------------------------------------

    def health(self) -> StoreHealth:
        """Whether Weaviate answers (REST and gRPC, with these credentials); never raises."""
        try:

            def op(client: Any) -> int:
                if not client.is_ready():
                    raise StoreUnavailableError(f"Weaviate at {self.url} is not ready")
                return int(self._collection(client).aggregate.over_all(total_count=True).total_count or 0)

            total = self._query("health check", op)
            version = self._conn.server_version
            suffix = f", Weaviate {version}" if version else ""
            return StoreHealth(
                self.name, True, f"{self.url}: collection {self.config.collection}, {total} chunks{suffix}"
            )
        except Exception as exc:  # noqa: BLE001 - health must not raise
            return StoreHealth(self.name, False, mask(str(exc)) or type(exc).__name__)
