"""An in-memory BM25 index over word tokens (courserag.lang.textnorm.word_tokens).

Used by the local course store and the session pool. Documents are only appended; removing
documents means building a new index, which happens only when files change, never per query.
k1=1.2 and b=0.75 are the Lucene/Weaviate defaults, so scores are comparable with
Weaviate's BM25 on the same tokens.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from typing import Iterable, Sequence

import numpy as np

K1 = 1.2
B = 0.75


class BM25Index:
    """Inverted index: term -> postings (document ids and term frequencies).

    Postings are typed arrays (`array('i')`, `array('f')`): 4 bytes an entry instead of a
    list slot (8 bytes) plus, for a doc id, an int object (28 bytes); appendable in place,
    and read by numpy without a copy (np.frombuffer) when scoring. 18M postings at 100k
    chunks take ~90 MB.
    """

    def __init__(self, documents: Iterable[Sequence[str]] = ()):
        self._postings: dict[str, tuple[array, array]] = {}
        self._lengths = array("i")
        self._bulk_add(documents if isinstance(documents, list) else list(documents))

    def __len__(self) -> int:
        return len(self._lengths)

    def add(self, documents: Iterable[Sequence[str]]) -> None:
        """Append documents; their ids continue from the current length."""
        postings = self._postings
        for tokens in documents:
            doc_id = len(self._lengths)
            self._lengths.append(len(tokens))
            for term, tf in Counter(tokens).items():
                entry = postings.get(term)
                if entry is None:
                    entry = postings[term] = (array("i"), array("f"))
                entry[0].append(doc_id)
                entry[1].append(tf)

    def _bulk_add(self, documents: list[Sequence[str]]) -> None:
        """Build an empty index from many documents at once, counting with numpy instead of
        a Counter and two appends per posting: the same postings as `add` (doc ids
        ascending per term)."""
        if len(self._lengths) or len(documents) < 1000:
            self.add(documents)
            return
        vocab: dict[str, int] = {}
        setdefault = vocab.setdefault
        terms = np.fromiter((setdefault(t, len(vocab)) for doc in documents for t in doc), dtype=np.int64)
        lengths = np.fromiter((len(doc) for doc in documents), dtype=np.int32, count=len(documents))
        n = len(documents)
        docs = np.repeat(np.arange(n, dtype=np.int64), lengths)
        keys, tfs = np.unique(terms * n + docs, return_counts=True)  # sorted: by term, then doc
        del terms, docs
        term_of = keys // n
        doc_of = (keys % n).astype(np.int32)
        tfs = tfs.astype(np.float32)
        cuts = np.flatnonzero(np.diff(term_of)) + 1
        starts = np.concatenate(([0], cuts)).tolist()
        ends = np.concatenate((cuts, [len(keys)])).tolist()
        words = list(vocab)  # insertion order is id order
        for start, end in zip(starts, ends):
            ids, freqs = array("i"), array("f")
            ids.frombytes(doc_of[start:end].tobytes())
            freqs.frombytes(tfs[start:end].tobytes())
            self._postings[words[int(term_of[start])]] = (ids, freqs)
        self._lengths.frombytes(lengths.tobytes())

    def _posting_arrays(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """Zero-copy views of a term's postings; valid until the next `add` (callers hold
        the owning index's lock, so none outlives a scoring call)."""
        entry = self._postings.get(term)
        if entry is None:
            return None
        return np.frombuffer(entry[0], dtype=np.int32), np.frombuffer(entry[1], dtype=np.float32)

    def scores(self, query: Sequence[str]) -> np.ndarray:
        """BM25 score of every document for the query tokens (zeros where no term matches)."""
        n = len(self._lengths)
        out = np.zeros(n, dtype=np.float32)
        if n == 0:
            return out
        lengths = np.frombuffer(self._lengths, dtype=np.int32)
        avgdl = float(lengths.mean()) or 1.0
        for term in set(query):
            arrays = self._posting_arrays(term)
            if arrays is None:
                continue
            ids, tfs = arrays
            # Lucene's idf: always positive, so a very common term still counts a little.
            idf = math.log(1.0 + (n - len(ids) + 0.5) / (len(ids) + 0.5))
            norm = K1 * (1.0 - B + B * lengths[ids].astype(np.float32) / avgdl)
            out[ids] += idf * tfs * (K1 + 1.0) / (tfs + norm)
            del ids, tfs, arrays  # release the buffer views before any later append
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
