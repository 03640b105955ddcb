"""Sentence vectors: a chunk's best-matching sentence as a second similarity signal.

A question usually paraphrases one sentence of the passage that answers it, while a chunk's
vector averages all of its sentences. So each chunk of two or more sentences also keeps one
vector per sentence (computed at index time, stored beside the chunk vectors with the row of
the chunk that owns them), and at query time only the candidates' sentences are scored: a
few hundred dot products, no embedding beyond the question's.

The ranker (ranking.rerank_hybrid) orders candidates by 0.5 x chunk + 0.5 x best sentence
similarity (RetrievalSettings.sentence_weight); measured with the default embedder in
docs/EVALUATION.md ("Sentence vectors").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Mapping, Sequence

import numpy as np

from courserag.ingest.chunking import split_sentences
from courserag.records import Chunk, ScoredChunk

# What an index holds. 2: sentence vectors beside the chunk vectors. An index of an older
# format is another embedding space for the model guard (`index_space`): the app names the
# command that rebuilds it, and a build re-embeds it (indexer._plan).
INDEX_FORMAT = 2
# Sentence vectors are kept as int8 with one scale per vector (`quantize`): there are ~5 per
# chunk, so at 100,000 chunks they were most of a loaded course's memory in half precision
# (896 MB); a cosine through int8 moves by under 0.005, measured on the retrieval sets
# (docs/DECISIONS.md). The chunk vectors, which FAISS searches, stay float32.
SENTENCE_DTYPE = np.int8
_LEVELS = 127.0


def quantize(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int8 codes, float32 scales): each row scaled so its largest component is +-127, so
    `codes * scales[:, None]` is the row to within half a step of its own scale."""
    vectors = np.asarray(vectors, dtype=np.float32)
    peaks = np.abs(vectors).max(axis=1) if len(vectors) else np.zeros(0, np.float32)
    scales = np.where(peaks > 0, peaks / _LEVELS, 1.0).astype(np.float32)
    if not len(vectors):
        return vectors.astype(SENTENCE_DTYPE), scales
    return np.rint(vectors / scales[:, None]).astype(SENTENCE_DTYPE), scales


@dataclass(frozen=True)
class SentenceVectors:
    """The sentence vectors of one file (or index): `owners[i]` is the row, in the same
    file's chunk list, of the chunk that sentence `i` belongs to (rows ascending); sentence
    `i`'s vector is `codes[i] * scales[i]` (`quantize`)."""

    owners: np.ndarray  # int32, shape (n,)
    codes: np.ndarray  # int8, shape (n, dim)
    scales: np.ndarray  # float32, shape (n,)

    @staticmethod
    def empty(dim: int) -> "SentenceVectors":
        return SentenceVectors(np.zeros(0, np.int32), np.zeros((0, dim), SENTENCE_DTYPE), np.zeros(0, np.float32))

    @staticmethod
    def of(owners: Sequence[int], vectors: np.ndarray, dim: int) -> "SentenceVectors":
        """From float vectors (quantized here)."""
        owners = np.asarray(owners, dtype=np.int32).reshape(-1)
        codes, scales = quantize(np.asarray(vectors, dtype=np.float32).reshape(len(owners), dim))
        return SentenceVectors(owners, codes, scales)

    @staticmethod
    def stored(owners: np.ndarray, codes: np.ndarray, scales: np.ndarray, dim: int) -> "SentenceVectors":
        """From the codes and scales a store kept (checked for shape, not quantized again)."""
        owners = np.asarray(owners, dtype=np.int32).reshape(-1)
        codes = np.asarray(codes, dtype=SENTENCE_DTYPE).reshape(len(owners), dim)
        return SentenceVectors(owners, codes, np.asarray(scales, dtype=np.float32).reshape(len(owners)))

    def __len__(self) -> int:
        return len(self.owners)

    @property
    def dim(self) -> int:
        return self.codes.shape[1]

    @property
    def vectors(self) -> np.ndarray:
        """The vectors as float32 (n, dim), for a store that keeps floats (Weaviate)."""
        return self.codes.astype(np.float32) * self.scales[:, None]

    def select(self, rows: Sequence[int]) -> "SentenceVectors":
        """The sentences of the chunks at `rows` (ascending), owners renumbered 0.. in that order."""
        renumber = {int(r): i for i, r in enumerate(rows)}
        keep = np.array([i for i, o in enumerate(self.owners) if int(o) in renumber], dtype=np.int64)
        owners = np.array([renumber[int(self.owners[i])] for i in keep], dtype=np.int32)
        if not len(keep):
            return SentenceVectors(owners, self.codes[:0], self.scales[:0])
        return SentenceVectors(owners, self.codes[keep], self.scales[keep])

    @staticmethod
    def concat(parts: Sequence[tuple["SentenceVectors", int]], dim: int) -> "SentenceVectors":
        """Join (sentences, row offset of their file's first chunk) pairs into one."""
        parts = [(p, offset) for p, offset in parts if len(p)]
        if not parts:
            return SentenceVectors.empty(dim)
        owners = np.concatenate([p.owners + np.int32(offset) for p, offset in parts]).astype(np.int32)
        codes = np.concatenate([p.codes for p, _ in parts])
        return SentenceVectors(owners, codes, np.concatenate([p.scales for p, _ in parts]))

    def best_scores(self, spans: Sequence[tuple[int, int]], query: np.ndarray) -> list[float]:
        """The best cosine of each span of sentence rows with the (normalised) query: one
        gather and one matrix product for all candidates."""
        spans = list(spans)
        if not spans:
            return []
        rows = np.concatenate([np.arange(a, b) for a, b in spans])
        query = np.asarray(query, dtype=np.float32).reshape(-1)
        scores = (self.codes[rows].astype(np.float32) @ query) * self.scales[rows]
        starts = np.cumsum([0] + [b - a for a, b in spans[:-1]])
        return np.maximum.reduceat(scores, starts).astype(float).tolist()


def index_space(model: str, index_format: int) -> str:
    """What the model guard compares: the model, plus what an older format lacks."""
    return model if index_format >= INDEX_FORMAT else f"{model} (without sentence vectors)"


def chunk_sentences(chunks: Sequence[Chunk]) -> tuple[list[str], list[int]]:
    """(sentence texts, owner rows) for the chunks of two or more sentences. A chunk of one
    sentence is its own best sentence: its chunk vector already says it, so it gets none."""
    texts: list[str] = []
    owners: list[int] = []
    for row, chunk in enumerate(chunks):
        sentences = split_sentences(chunk.text)
        if len(sentences) > 1:
            texts.extend(sentences)
            owners.extend([row] * len(sentences))
    return texts, owners


def embed_chunks(
    embed: Callable[[list[str]], np.ndarray], chunks: Sequence[Chunk], dim: int
) -> tuple[np.ndarray, SentenceVectors]:
    """Chunk vectors, then sentence vectors, in two calls to `embed`. Apart, because the
    int8 model's vectors depend a little on what shares their batch: the chunks get exactly
    the vectors they had before sentence vectors existed (a near tie in the sample course
    flipped when sentences were batched with them)."""
    sentences, owners = chunk_sentences(chunks)

    def run(texts: list[str]) -> np.ndarray:
        return (
            np.asarray(embed(texts), dtype=np.float32).reshape(len(texts), dim)
            if texts
            else np.zeros((0, dim), np.float32)
        )

    return run([c.text for c in chunks]), SentenceVectors.of(owners, run(sentences), dim)


def sentence_spans(owners: np.ndarray) -> dict[int, tuple[int, int]]:
    """Owner row -> (first, end) sentence rows; owners are ascending, so each is one run."""
    spans: dict[int, tuple[int, int]] = {}
    if len(owners) == 0:
        return spans
    starts = np.flatnonzero(np.diff(owners, prepend=owners[0] - 1))
    ends = np.append(starts[1:], len(owners))
    for start, end in zip(starts.tolist(), ends.tolist()):
        spans[int(owners[start])] = (start, end)
    return spans


def with_sentences(candidates: Sequence[ScoredChunk], best: Mapping[str, float]) -> list[ScoredChunk]:
    """The candidates with their best sentence similarity (`ScoredChunk.sentence`); one
    without sentence vectors (one sentence, a directory fact, an index that has none) keeps
    None, and ranks by its chunk similarity, which is what its best sentence would say."""
    return [replace(c, sentence=best[c.chunk.id]) if c.chunk.id in best else c for c in candidates]
