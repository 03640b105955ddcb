"""A searchable set of chunks: a FAISS inner-product index beside a BM25 index.

The vectors are stored in half precision (a FAISS scalar quantizer, exhaustive like a flat
index): a single question's search is memory-bound, and halving the bytes read cut it from
~23 ms to ~7 ms at 100k chunks of 896 dimensions (docs/EVALUATION.md, "Half-precision chunk
vectors"). A cosine changes by ~1e-4, far below any threshold here.

Both the session pool (uploads) and the local course store keep one of these in memory.
It is extended in place when chunks are added and rebuilt only when chunks are removed; a
query only reads it. `builds` and `extends` count that work so tests can prove a query never
rebuilds anything.
"""

from __future__ import annotations

import threading
from typing import Sequence

import faiss
import numpy as np

from courserag.records import Chunk, ScoredChunk
from courserag.retrieval.bm25 import BM25Index
from courserag.retrieval.sentence_vectors import SentenceVectors, sentence_spans


def new_vector_index(dim: int) -> faiss.Index:
    """An exhaustive inner-product index over half-precision vectors (see the module doc)."""
    return faiss.IndexScalarQuantizer(dim, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT)


class ChunkIndex:
    """Chunks with their vectors and lexical tokens, searchable both ways."""

    def __init__(self, dim: int, store_name: str):
        self.dim = dim
        self.store_name = store_name
        self.builds = 0
        self.extends = 0
        self._lock = threading.RLock()
        self._reset()

    def _reset(self) -> None:
        self.chunks: list[Chunk] = []
        self.tokens: list[list[str]] = []
        self._faiss = new_vector_index(self.dim)
        self._bm25 = BM25Index()
        self._sentences = SentenceVectors.empty(self.dim)
        self._spans: dict[str, tuple[int, int]] = {}  # chunk id -> its sentence rows

    def _set_sentences(self, sentences: SentenceVectors) -> None:
        self._sentences = sentences
        self._spans = {self.chunks[row].id: span for row, span in sentence_spans(sentences.owners).items()}

    @property
    def sentences(self) -> SentenceVectors:
        """The sentence vectors, owners being rows of `chunks`."""
        return self._sentences

    def __len__(self) -> int:
        return len(self.chunks)

    @property
    def vectors(self) -> np.ndarray:
        """The indexed vectors (as stored, half precision), decoded from FAISS's own
        storage: the index keeps no second copy of them."""
        with self._lock:
            n = self._faiss.ntotal
            if n == 0:
                return np.zeros((0, self.dim), dtype=np.float32)
            return self._faiss.reconstruct_n(0, n)

    def add(
        self,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        tokens: Sequence[list[str]],
        sentences: SentenceVectors | None = None,
    ) -> None:
        """Append chunks (same order as their vectors and tokens) without touching the rest;
        `sentences` owners are rows of `chunks`."""
        if not chunks:
            return
        vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(chunks), self.dim)
        with self._lock:
            offset = len(self.chunks)
            self.chunks.extend(chunks)
            if sentences is not None and len(sentences):
                self._set_sentences(SentenceVectors.concat([(self._sentences, 0), (sentences, offset)], self.dim))
            self.tokens.extend(list(t) for t in tokens)
            self._faiss.add(vectors)
            self._bm25.add(tokens)
            self.extends += 1

    def rebuild(
        self,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        tokens: Sequence[list[str]],
        sentences: SentenceVectors | None = None,
    ) -> None:
        """Replace everything (used when chunks are removed): no re-embedding, just re-indexing."""
        with self._lock:
            self._reset()
            self.builds += 1
            if chunks:
                vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(chunks), self.dim)
                self.chunks = list(chunks)
                self.tokens = [list(t) for t in tokens]
                self._faiss.add(vectors)
                self._bm25 = BM25Index(self.tokens)
                if sentences is not None:
                    self._set_sentences(sentences)

    def keep(self, predicate) -> None:
        """Rebuild with only the chunks for which `predicate(chunk)` is true."""
        with self._lock:
            keep = [i for i, c in enumerate(self.chunks) if predicate(c)]
            sentences = self._sentences.select(keep)
            self.rebuild([self.chunks[i] for i in keep], self.vectors[keep], [self.tokens[i] for i in keep], sentences)

    def best_sentences(self, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        """Chunk id -> best sentence similarity to `vector`, for those of `chunk_ids` that
        have sentence vectors (sentences.py)."""
        with self._lock:
            found = [(cid, self._spans[cid]) for cid in dict.fromkeys(chunk_ids) if cid in self._spans]
            scores = self._sentences.best_scores([span for _, span in found], vector)
            return {cid: score for (cid, _), score in zip(found, scores)}

    def vector_search(self, vector: np.ndarray, k: int) -> list[ScoredChunk]:
        with self._lock:
            if not self.chunks or k <= 0:
                return []
            query = np.ascontiguousarray(vector, dtype=np.float32).reshape(1, self.dim)
            scores, ids = self._faiss.search(query, min(k, len(self.chunks)))
            return [
                ScoredChunk(self.chunks[i], vector=float(s), score=float(s), store=self.store_name, signals=("vector",))
                for s, i in zip(scores[0], ids[0])
                if i >= 0
            ]

    def lexical_search(self, tokens: Sequence[str], k: int) -> list[ScoredChunk]:
        with self._lock:
            return [
                ScoredChunk(self.chunks[i], lexical=s, score=s, store=self.store_name, signals=("lexical",))
                for i, s in self._bm25.search(tokens, k)
            ]
