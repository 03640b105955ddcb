"""Passage vectors of whole groups of texts (one cited source's answer units), kept between questions.

The extractive answer measures every unit of its cited sources against the question. A
source's units are the same whichever question cites it, so their vectors are kept (the
least recently used group is forgotten first) and a course's common sources are embedded
once, not once per question.

Each group is embedded in calls of its own, never beside another group's texts: the int8
model quantizes its activations per batch, so a vector differs a little (up to 0.014 in
cosine) with what shares its batch. Kept this way, a group's vectors are exactly the ones a
fresh embedding gives, and an answer never depends on the questions asked before it
(docs/DECISIONS.md, "Unit vectors kept per source").

With an embedder that gives token states (E5), each unit's are kept beside its vector, from
the same run: the composer also measures how well the question's tokens each find their
match in a unit (`token_match`), which reads a short fact better than one whole vector.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, NamedTuple, Sequence

import numpy as np

from courserag.embedders.base import Embedder


class UnitMatches(NamedTuple):
    """A group of units measured against one question."""

    meaning: np.ndarray  # cosine of each unit's vector with the question's
    tokens: np.ndarray | None  # each unit's `token_match` (None: the embedder gives no token states)


def meaning_of(found: UnitMatches | np.ndarray) -> np.ndarray:
    """The cosines of a `similarity` call's result (a test may give them bare)."""
    return found.meaning if isinstance(found, UnitMatches) else np.asarray(found)


class Group(NamedTuple):
    """One group's passage vectors and, when the embedder gives them, token states."""

    vectors: np.ndarray
    tokens: list[np.ndarray] | None

    @property
    def size(self) -> tuple[int, int]:
        """(vectors, token states) held."""
        return len(self.vectors), sum(len(t) for t in self.tokens or ())


def token_match(question: np.ndarray, unit: np.ndarray) -> float:
    """The mean, over the question's tokens, of each one's best cosine with a token of the
    unit (unit-length rows; late interaction, as ColBERT scores). 0 for an empty side."""
    if not len(question) or not len(unit):
        return 0.0
    return float((question.astype(np.float32) @ unit.astype(np.float32).T).max(axis=1).mean())


def token_matches(question: np.ndarray, units: Sequence[np.ndarray]) -> np.ndarray:
    """`token_match` of the question with each unit, in one product over all their tokens."""
    lengths = np.array([len(u) for u in units])
    out = np.zeros(len(units), dtype=np.float32)
    filled = lengths > 0
    if not len(question) or not filled.any():
        return out
    tokens = np.concatenate([u for u in units if len(u)]).astype(np.float32)
    similarity = question.astype(np.float32) @ tokens.T  # [question tokens, unit tokens]
    starts = np.concatenate([[0], np.cumsum(lengths[filled])[:-1]])
    out[filled] = np.maximum.reduceat(similarity, starts, axis=1).mean(axis=0)
    return out


class GroupVectors:
    """Vectors of groups of passages, each group embedded on its own, at most `max_vectors`
    vectors and `max_tokens` token states kept (token states are float16: 768 bytes each)."""

    def __init__(self, max_vectors: int = 12_000, max_tokens: int = 100_000):
        if max_vectors <= 0 or max_tokens <= 0:
            raise ValueError(f"max_vectors and max_tokens must be > 0, but got {max_vectors}, {max_tokens}")
        self.max_vectors = max_vectors
        self.max_tokens = max_tokens
        self.embedded = 0  # groups the embedder was asked for (misses)
        self._groups: OrderedDict[tuple, Group] = OrderedDict()
        self._held = (0, 0)  # (vectors, token states)
        self._embedder: Embedder | None = None  # whose vectors are kept (the engine may swap its model)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._groups)

    def vectors(self, embedder: Embedder, texts: Sequence[str], across_languages: bool, batch_size: int) -> np.ndarray:
        """The passage vectors of `texts` (one group) for a question asked in the same
        language or across languages (`Embedder.embed_passages_for`)."""
        return self.group(embedder, texts, across_languages, batch_size).vectors

    def group(self, embedder: Embedder, texts: Sequence[str], across_languages: bool, batch_size: int) -> Group:
        """The vectors and token states of `texts` (one group), embedded once."""
        texts = list(texts)
        if not texts:
            return Group(np.zeros((0, embedder.dim), dtype=np.float32), [])
        key = (across_languages, tuple(texts))
        with self._lock:
            if embedder is not self._embedder:  # another model: what is kept is another space
                self._groups.clear()
                self._held, self._embedder = (0, 0), embedder
            if key in self._groups:
                self._groups.move_to_end(key)
                return self._groups[key]
        vectors, tokens = embedder.embed_passages_with_tokens(texts, across_languages, batch_size)
        vectors = np.asarray(vectors, dtype=np.float32)
        vectors.setflags(write=False)
        group = Group(vectors, tokens)
        with self._lock:
            self.embedded += 1
            if embedder is self._embedder and key not in self._groups:
                self._groups[key] = group
                self._held = _plus(self._held, group.size)
            while (self._held[0] > self.max_vectors or self._held[1] > self.max_tokens) and len(self._groups) > 1:
                _, dropped = self._groups.popitem(last=False)
                self._held = _plus(self._held, dropped.size, -1)
        return group

    def similarity(
        self, embedder: Embedder, query: np.ndarray, across_languages: bool, batch_size: int, text: str | None = None
    ) -> Callable[[list[str]], UnitMatches]:
        """The composer's `similarity`: a group of units' cosines with the question's vector
        and, given the question's `text` and an embedder with token states, its token match."""
        query = np.asarray(query, dtype=np.float32).reshape(-1)
        question_tokens = embedder.query_tokens(text) if text is not None else None

        def similarity(texts: list[str]) -> UnitMatches:
            return unit_matches(self.group(embedder, texts, across_languages, batch_size), query, question_tokens)

        return similarity


def unit_matches(group: Group, query: np.ndarray, question_tokens: np.ndarray | None) -> UnitMatches:
    """A group's cosines with the question's vector and, where both the question and the
    group have token states, each unit's token match."""
    tokens = None
    if question_tokens is not None and group.tokens is not None:
        tokens = token_matches(question_tokens, group.tokens)
    return UnitMatches(group.vectors @ query, tokens)


def _plus(held: tuple[int, int], size: tuple[int, int], sign: int = 1) -> tuple[int, int]:
    return held[0] + sign * size[0], held[1] + sign * size[1]
