"""Passage vectors of whole groups of texts (one cited source's answer units), kept between questions.

The extractive answer measures every unit of its cited sources against the question. A
source's units are the same whichever question cites it, so their vectors are kept (the
least recently used group is forgotten first) and a course's common sources are embedded
once, not once per question.

Each group is embedded in calls of its own, never beside another group's texts: the int8
model quantizes its activations per batch, so a vector differs a little (up to 0.014 in
cosine) with what shares its batch. Kept this way, a group's vectors are exactly the ones a
fresh embedding gives, and an answer never depends on the questions asked before it
(docs/EVALUATION.md, "Speed: unit vectors kept per source").
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Sequence

import numpy as np

from courserag.embedders.base import Embedder


class GroupVectors:
    """Vectors of groups of passages, each group embedded on its own, at most `max_vectors` kept."""

    def __init__(self, max_vectors: int = 12_000):
        if max_vectors <= 0:
            raise ValueError(f"max_vectors must be > 0, but got {max_vectors}")
        self.max_vectors = max_vectors
        self.embedded = 0  # groups the embedder was asked for (misses)
        self._groups: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._held = 0
        self._embedder: Embedder | None = None  # whose vectors are kept (the engine may swap its model)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._groups)

    def vectors(self, embedder: Embedder, texts: Sequence[str], across_languages: bool, batch_size: int) -> np.ndarray:
        """The passage vectors of `texts` (one group) for a question asked in the same
        language or across languages (`Embedder.embed_passages_for`)."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, embedder.dim), dtype=np.float32)
        key = (across_languages, tuple(texts))
        with self._lock:
            if embedder is not self._embedder:  # another model: what is kept is another space
                self._groups.clear()
                self._held, self._embedder = 0, embedder
            if key in self._groups:
                self._groups.move_to_end(key)
                return self._groups[key]
        vectors = np.asarray(embedder.embed_passages_for(texts, across_languages, batch_size), dtype=np.float32)
        vectors.setflags(write=False)
        with self._lock:
            self.embedded += 1
            if embedder is self._embedder and key not in self._groups:
                self._groups[key] = vectors
                self._held += len(vectors)
            while self._held > self.max_vectors and len(self._groups) > 1:
                _, dropped = self._groups.popitem(last=False)
                self._held -= len(dropped)
        return vectors

    def similarity(
        self, embedder: Embedder, query: np.ndarray, across_languages: bool, batch_size: int
    ) -> Callable[[list[str]], np.ndarray]:
        """The composer's `similarity`: a group of units' cosines with the question's vector."""
        query = np.asarray(query, dtype=np.float32).reshape(-1)

        def similarity(texts: list[str]) -> np.ndarray:
            return self.vectors(embedder, texts, across_languages, batch_size) @ query

        return similarity
