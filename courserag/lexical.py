"""An in-memory BM25 index over word tokens (courserag.textnorm.word_tokens).

Used by the local course store and the session pool. Documents are only appended; removing
documents means building a new index, which happens only when files change, never per query.
k1=1.2 and b=0.75 are the Lucene/Weaviate defaults, so scores are comparable with
Weaviate's BM25 on the same tokens.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Iterable, Sequence

import numpy as np

K1 = 1.2
B = 0.75


class BM25Index:
    """Inverted index: term -> postings (document ids and term frequencies)."""

    def __init__(self, documents: Iterable[Sequence[str]] = ()):
        self._postings: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
        self._lengths: list[int] = []
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._lengths_array: np.ndarray | None = None
        self.add(documents)

    def __len__(self) -> int:
        return len(self._lengths)

    def add(self, documents: Iterable[Sequence[str]]) -> None:
        """Append documents; their ids continue from the current length."""
        for tokens in documents:
            doc_id = len(self._lengths)
            self._lengths.append(len(tokens))
            for term, tf in Counter(tokens).items():
                ids, tfs = self._postings[term]
                ids.append(doc_id)
                tfs.append(tf)
                self._arrays.pop(term, None)
        self._lengths_array = None

    def _posting_arrays(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        if term not in self._postings:
            return None
        if term not in self._arrays:
            ids, tfs = self._postings[term]
            self._arrays[term] = (np.asarray(ids, dtype=np.int64), np.asarray(tfs, dtype=np.float32))
        return self._arrays[term]

    def scores(self, query: Sequence[str]) -> np.ndarray:
        """BM25 score of every document for the query tokens (zeros where no term matches)."""
        n = len(self._lengths)
        out = np.zeros(n, dtype=np.float32)
        if n == 0:
            return out
        if self._lengths_array is None:
            self._lengths_array = np.asarray(self._lengths, dtype=np.float32)
        lengths = self._lengths_array
        avgdl = float(lengths.mean()) or 1.0
        for term in set(query):
            arrays = self._posting_arrays(term)
            if arrays is None:
                continue
            ids, tfs = arrays
            # Lucene's idf: always positive, so a very common term still counts a little.
            idf = math.log(1.0 + (n - len(ids) + 0.5) / (len(ids) + 0.5))
            norm = K1 * (1.0 - B + B * lengths[ids] / avgdl)
            out[ids] += idf * tfs * (K1 + 1.0) / (tfs + norm)
        return out

    def search(self, query: Sequence[str], k: int) -> list[tuple[int, float]]:
        """Top-k (document id, score) pairs with a positive score, best first."""
        scores = self.scores(query)
        return top_k(scores, k, positive_only=True)


def top_k(scores: np.ndarray, k: int, positive_only: bool = False) -> list[tuple[int, float]]:
    """Indices and values of the k largest scores, best first (argpartition: O(n))."""
    if k <= 0 or scores.size == 0:
        return []
    k = min(k, scores.size)
    idx = np.argpartition(-scores, k - 1)[:k]
    idx = idx[np.argsort(-scores[idx], kind="stable")]
    return [(int(i), float(scores[i])) for i in idx if not positive_only or scores[i] > 0]
