"""Two embedding models as one: their normalised vectors side by side, weighted.

For unit vectors a and b and weights w1 + w2 = 1, the vector [sqrt(w1)·a, sqrt(w2)·b] is
again a unit vector, and the inner product of two such vectors is w1·cos(a) + w2·cos(b):
FAISS and Weaviate compare ensembles exactly as they compare single models, and the stores
need no change. The first part decides tokens (chunk sizes, the window, packing).

Measured (bench/e5_embedders.py and docs/EVALUATION.md): multilingual-e5-small with USE
multilingual v3 at weights 0.7 / 0.3 retrieves Chinese questions over English passages at
R@1 0.786 (e5 alone 0.688) and English over Chinese at 0.804 (0.735), at ~2 ms more a
question.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from courserag.embedders.base import Embedder, l2_normalize

WORD_CACHE = 50_000  # word vectors kept (a course's vocabulary)


class EnsembleEmbedder(Embedder):
    """Weighted concatenation of two (or more) embedders' normalised vectors.

    Passages are stored once, with the ensemble weights; a question can weigh the parts
    differently by scaling its own blocks (`query_for`): block i of the question scaled by
    v_i / w_i makes the inner product sum(v_i * cos_i). Measured: within one language
    multilingual-e5-small alone ranks best (SQuAD R@1 0.740 dense against 0.658 for the
    0.7/0.3 ensemble; CMRC 0.947 against 0.882), across languages the ensemble does.
    """

    def __init__(self, parts: Sequence[tuple[Embedder, float]], in_language: Sequence[float] | None = None):
        if len(parts) < 2:
            raise ValueError(f"an ensemble needs at least two models, but got {len(parts)}")
        total = sum(weight for _, weight in parts)
        if total <= 0 or any(weight <= 0 for _, weight in parts):
            raise ValueError(f"ensemble weights must be > 0, but got {[w for _, w in parts]}")
        self.parts = [(model, weight / total) for model, weight in parts]
        self.name = "+".join(model.name for model, _ in parts)
        self.dim = sum(model.dim for model, _ in parts)
        weights = list(in_language) if in_language is not None else [w for _, w in self.parts]
        if len(weights) != len(parts) or sum(weights) <= 0 or any(w < 0 for w in weights):
            raise ValueError(f"in-language weights must be one per part, >= 0, not all 0, but got {weights}")
        self.in_language = [w / sum(weights) for w in weights]
        self._words: dict[str, np.ndarray] = {}  # word -> vector, oldest first

    def word_vectors(self, words: Sequence[str]) -> np.ndarray | None:
        """Words go to the part that reads single words well (USE multilingual v3 matches
        期末/final, 学习率/learning rate; e5 maps most exam words to "midterm"), cached."""
        part = next((model for model, _ in self.parts if model.name.startswith("use-")), None)
        if part is None:
            return None
        missing = [w for w in dict.fromkeys(words) if w not in self._words]
        if missing:
            for word, vector in zip(missing, part.embed_batch(missing, 64)):
                if len(self._words) >= WORD_CACHE:
                    self._words.pop(next(iter(self._words)))
                self._words[word] = vector
        return np.stack([self._words[w] for w in words])

    def query_for(self, vector: np.ndarray, across_languages: bool) -> np.ndarray:
        if across_languages:
            return vector
        scales = [
            np.full(model.dim, wanted / weight, dtype=np.float32)
            for (model, weight), wanted in zip(self.parts, self.in_language)
        ]
        return np.asarray(vector, dtype=np.float32) * np.concatenate(scales)

    def _weighed(self, across_languages: bool) -> list[bool]:
        """Which parts a question's vector weighs (in one language, USE weighs nothing)."""
        return [True] * len(self.parts) if across_languages else [w > 0 for w in self.in_language]

    def _partial(self, count: int, encode, use: list[bool]) -> np.ndarray:
        """`_join` of the parts in `use`, zeros for the others (never computed)."""
        blocks = [
            l2_normalize(encode(model)) * np.float32(np.sqrt(weight))
            if on
            else np.zeros((count, model.dim), np.float32)
            for (model, weight), on in zip(self.parts, use)
        ]
        return np.concatenate(blocks, axis=1)

    def embed_query_for(self, text: str, across_languages: bool) -> np.ndarray:
        # In one language only E5 counts (query_for scales USE's block by 0): USE's ~20 ms
        # per question is skipped, not computed and thrown away.
        use = self._weighed(across_languages)
        return self.query_for(self._partial(1, lambda model: model.embed_queries([text]), use)[0], across_languages)

    def embed_passages_for(self, texts: Sequence[str], across_languages: bool, batch_size: int = 32) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._partial(
            len(texts), lambda model: model.embed_batch(texts, batch_size), self._weighed(across_languages)
        )

    def embed_passages_with_tokens(
        self, texts: Sequence[str], across_languages: bool, batch_size: int = 32
    ) -> tuple[np.ndarray, list[np.ndarray] | None]:
        """The token states are the first part's that has them (E5's), from its own run."""
        found: list[list[np.ndarray]] = []

        def encode(model: Embedder) -> np.ndarray:
            vectors, tokens = model.embed_passages_with_tokens(texts, across_languages, batch_size)
            if tokens is not None and not found:
                found.append(tokens)
            return vectors

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32), []
        vectors = self._partial(len(texts), encode, self._weighed(across_languages))
        return vectors, (found[0] if found else None)

    def query_tokens(self, text: str) -> np.ndarray | None:
        return next((t for t in (model.query_tokens(text) for model, _ in self.parts) if t is not None), None)

    @property
    def reads_chinese(self) -> bool:  # type: ignore[override]
        return any(model.reads_chinese for model, _ in self.parts)

    @property
    def window_tokens(self) -> int:  # type: ignore[override]
        return self.parts[0][0].window_tokens

    def count_tokens(self, text: str) -> int:
        return self.parts[0][0].count_tokens(text)

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str:
        return self.parts[0][0].truncate_to_tokens(text, max_tokens)

    def _join(self, blocks: list[np.ndarray]) -> np.ndarray:
        scaled = [l2_normalize(block) * np.float32(np.sqrt(weight)) for block, (_, weight) in zip(blocks, self.parts)]
        return np.concatenate(scaled, axis=1)

    def _encode(self, texts: list[str]) -> np.ndarray:
        return self._join([model._encode(texts) for model, _ in self.parts])

    def embed_batch(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._join([model.embed_batch(texts, batch_size) for model, _ in self.parts])

    def embed_queries(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._join([model.embed_queries(texts, batch_size) for model, _ in self.parts])
