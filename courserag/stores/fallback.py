"""One fallback policy for every reader of the course store.

With Weaviate configured, a local index built earlier can answer while Weaviate is
unreachable. `FallbackCourseStore` is that policy in one place: reads go to the primary
and, when it raises `StoreUnavailableError`, to the fallback, with a notice saying so;
writes go to the primary only (an instructor must know when Weaviate did not take a build),
and so do a build's reads (`for_writes`): a build against an unreachable Weaviate once compared
with the local copy, found every file "unchanged" and reported success, writing nothing.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Callable, Sequence, TypeVar

import numpy as np

from courserag.errors import StoreUnavailableError
from courserag.i18n.messages import Notice
from courserag.records import Chunk, ScoredChunk
from courserag.retrieval.sentence_vectors import SentenceVectors
from courserag.stores.base import CourseHits, CourseStore, FileRecord, StoreHealth

log = logging.getLogger(__name__)
T = TypeVar("T")


class FallbackCourseStore:
    """CourseStore that reads from `primary`, or from `fallback` when the primary is down."""

    def __init__(self, primary: CourseStore, fallback: CourseStore):
        self.primary = primary
        self.fallback = fallback
        self.name = primary.name

    def __repr__(self) -> str:
        return f"FallbackCourseStore({self.primary!r}, {self.fallback!r})"

    @property
    def stores(self) -> tuple[CourseStore, CourseStore]:
        return (self.primary, self.fallback)

    def _read(self, what: str, call: Callable[[CourseStore], T]) -> tuple[T, Notice | None]:
        """call(primary), or call(fallback) with a notice naming the primary's failure."""
        try:
            return call(self.primary), None
        except StoreUnavailableError as exc:
            log.warning(
                "course store %s failed (%s), reading from %s: %s", self.primary.name, what, self.fallback.name, exc
            )
            notice = Notice(
                "course_store_fallback",
                {"store": self.primary.name, "detail": str(exc), "fallback": self.fallback.name},
            )
            try:
                return call(self.fallback), notice
            except StoreUnavailableError as second:
                raise StoreUnavailableError(f"{exc}; the local copy failed too: {second}") from second

    # -- reads --------------------------------------------------------------------------

    def search(self, course_id: str, vector: np.ndarray, tokens: Sequence[str], k: int) -> CourseHits:
        hits, notice = self._read("search", lambda store: store.search(course_id, vector, tokens, k))
        return replace(hits, notices=hits.notices + ((notice,) if notice else ()))

    def vector_search(self, course_id: str, vector: np.ndarray, k: int) -> list[ScoredChunk]:
        return self._read("vector search", lambda store: store.vector_search(course_id, vector, k))[0]

    def lexical_search(self, course_id: str, tokens: Sequence[str], k: int) -> list[ScoredChunk]:
        return self._read("lexical search", lambda store: store.lexical_search(course_id, tokens, k))[0]

    def best_sentences(self, course_id: str, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        return self._read("sentence scores", lambda store: store.best_sentences(course_id, chunk_ids, vector))[0]

    def files(self, course_id: str) -> dict[str, FileRecord]:
        return self._read("files", lambda store: store.files(course_id))[0]

    def count(self, course_id: str) -> int:
        return self._read("count", lambda store: store.count(course_id))[0]

    def index_model(self, course_id: str) -> str | None:
        return self._read("index model", lambda store: store.index_model(course_id))[0]

    def unreadable_files(self, course_id: str) -> frozenset[str]:
        return self._read("unreadable files", lambda store: store.unreadable_files(course_id))[0]

    def health(self) -> StoreHealth:
        return self.primary.health()

    # -- writes (primary only) ----------------------------------------------------------

    def replace_file(
        self,
        course_id: str,
        source: str,
        file_hash: str,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        sentences: SentenceVectors | None = None,
    ) -> None:
        self.primary.replace_file(course_id, source, file_hash, chunks, vectors, sentences)

    def delete_file(self, course_id: str, source: str) -> None:
        self.primary.delete_file(course_id, source)

    def delete_course(self, course_id: str) -> None:
        self.primary.delete_course(course_id)

    def stage(self, course_id: str):
        return self.primary.stage(course_id)

    def close(self) -> None:
        for store in self.stores:
            close = getattr(store, "close", None)
            if callable(close):
                close()


def for_writes(store: CourseStore) -> CourseStore:
    """The store a build reads and writes: the primary of a FallbackCourseStore, else `store`.
    The fallback is for learners' questions only."""
    return store.primary if isinstance(store, FallbackCourseStore) else store
