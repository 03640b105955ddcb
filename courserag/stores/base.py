"""The course store interface: what the engine and the index builder need from a backend.

Two implementations: `LocalCourseStore` (embedded, on disk, the default) and
`WeaviateCourseStore` (used when WEAVIATE_URL is set). Both keep a vector index and a
lexical (BM25) index over the same chunks, and every read is scoped to one course_id:
a search for one course can never return another course's chunk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from courserag.i18n.messages import Notice
from courserag.records import Chunk, ScoredChunk
from courserag.retrieval.sentence_vectors import SentenceVectors


@dataclass(frozen=True)
class StoreHealth:
    """What the instructor tab and the CLI show about a store."""

    name: str
    ok: bool
    detail: str = ""


@dataclass(frozen=True)
class CourseHits:
    """What one search of a course store found: both signals' candidate lists, the store
    that answered them, and what the learner should know about how (a fallback, say).

    A store with native hybrid search returns its fused hits as `lexical` (with the
    fused score as the lexical signal) and no `vector` list.
    """

    vector: list[ScoredChunk]
    lexical: list[ScoredChunk]
    store: str
    notices: tuple[Notice, ...] = ()


@dataclass(frozen=True)
class FileRecord:
    """One indexed file of a course: its SHA-256 (for incremental builds) and chunk count."""

    source: str
    file_hash: str
    chunks: int


@runtime_checkable
class CourseStore(Protocol):
    """A persistent, course_id-partitioned chunk store with vector and lexical search.

    Scores: `vector_search` fills `ScoredChunk.vector` with cosine similarity (vectors are
    L2-normalised, so it is the inner product); `lexical_search` fills `ScoredChunk.lexical`
    with the raw BM25 score over `lexical_tokens` (the same tokenizer on both stores, so
    the scores are comparable). `store` on each result names the backend.
    """

    name: str

    def files(self, course_id: str) -> dict[str, FileRecord]:
        """Indexed files of a course, by source path relative to the course folder."""
        ...

    def replace_file(
        self,
        course_id: str,
        source: str,
        file_hash: str,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        sentences: SentenceVectors | None = None,
    ) -> None:
        """Atomically replace every chunk of `source` in `course_id` by `chunks`, with their
        sentence vectors (sentences.py; owners are rows of `chunks`) when given."""
        ...

    def delete_file(self, course_id: str, source: str) -> None:
        """Remove every chunk of `source` in `course_id` (no error if there are none)."""
        ...

    def delete_course(self, course_id: str) -> None:
        """Remove everything of `course_id` (used by `--rebuild`)."""
        ...

    def vector_search(self, course_id: str, vector: np.ndarray, k: int) -> list[ScoredChunk]:
        """The k chunks of `course_id` nearest to the L2-normalised `vector`."""
        ...

    def lexical_search(self, course_id: str, tokens: Sequence[str], k: int) -> list[ScoredChunk]:
        """The k chunks of `course_id` with the highest BM25 score for `tokens`."""
        ...

    def search(self, course_id: str, vector: np.ndarray, tokens: Sequence[str], k: int) -> CourseHits:
        """Candidates for one question: the store's own way of combining the two searches
        (separate vector and BM25 lists, or native hybrid)."""
        ...

    def best_sentences(self, course_id: str, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        """Chunk id -> best sentence similarity to `vector`, for the given chunks that have
        sentence vectors ({} from a store that keeps none: they rank by chunk vector)."""
        ...

    def count(self, course_id: str) -> int:
        """How many chunks `course_id` has."""
        ...

    def index_model(self, course_id: str) -> str | None:
        """The embedding model the course's vectors come from (None when it has no index)."""
        ...

    def unreadable_files(self, course_id: str) -> frozenset[str]:
        """Indexed files whose stored chunks cannot be read (a build re-indexes them)."""
        ...

    def stage(self, course_id: str) -> "CourseStage":
        """A whole new version of the course, which replaces the live one only on commit."""
        ...

    def health(self) -> StoreHealth:
        """Whether the store answers, without raising."""
        ...


class CourseStage(Protocol):
    """A course being rebuilt: `put` every file, then `commit` (or `abort`). Until the
    commit, searches see the previous version whole."""

    def put(
        self,
        source: str,
        file_hash: str,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        sentences: SentenceVectors | None = None,
    ) -> None: ...

    def commit(self) -> None: ...

    def abort(self) -> None: ...


def separate_search(
    store: CourseStore, course_id: str, vector: np.ndarray, tokens: Sequence[str], k: int
) -> CourseHits:
    """`search` for stores without native hybrid: a vector list and a BM25 list."""
    return CourseHits(store.vector_search(course_id, vector, k), store.lexical_search(course_id, tokens, k), store.name)
