"""A course build's writes to Weaviate (the CourseStage of stores/base.py): each file is
replaced whole as it is put, and the files the build did not put are deleted on commit."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from courserag.records import Chunk
from courserag.retrieval.sentence_vectors import SentenceVectors
from courserag.stores.base import CourseStore


class WeaviateStage:
    """CourseStage for Weaviate: per-file replaces, then the files not put are deleted."""

    def __init__(self, store: CourseStore, course_id: str, before: set[str]):
        self.store = store
        self.course_id = course_id
        self.before = before
        self.put_sources: set[str] = set()

    def put(
        self,
        source: str,
        file_hash: str,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        sentences: SentenceVectors | None = None,
    ) -> None:
        self.store.replace_file(self.course_id, source, file_hash, chunks, vectors, sentences)
        self.put_sources.add(source)

    def commit(self) -> None:
        for source in sorted(self.before - self.put_sources):
            self.store.delete_file(self.course_id, source)

    def abort(self) -> None:
        """Files already replaced stay replaced (each replace was whole); nothing is deleted."""
