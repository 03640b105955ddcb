"""The embedder interface: one abstract method (`_encode`), batching and normalisation once.

Every implementation (sentence-transformers, onnxruntime, test fakes) only says how to
turn one batch of texts into raw vectors; sorting by length, batching and L2
normalisation live here, so all of them return vectors that FAISS inner products can
compare as cosines.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Sequence

import numpy as np


def l2_normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as float32 for FAISS."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


class Embedder(ABC):
    """Turns texts into L2-normalised vectors; counts tokens with the model's tokenizer.

    `name` identifies the vectors (caches key on it) and `dim` is their length; reading
    `dim` must not load a model, because stores are sized with it at start-up.
    """

    name: str
    dim: int
    window_tokens: int = 512  # tokens the model reads of one text; the rest is cut off
    # Whether the vectors carry Chinese text at all; an English-only vocabulary reads most
    # Chinese characters as one unknown token, and the ranking then leaves Chinese to BM25.
    reads_chinese: bool = True

    @abstractmethod
    def _encode(self, texts: list[str]) -> np.ndarray:
        """Embed one batch (the texts are already sorted by length)."""

    def count_tokens(self, text: str) -> int:
        """Tokens the model would see (without the window cut-off)."""
        return len(text.split())

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str:
        """The longest prefix of `text` that has at most `max_tokens` tokens."""
        words = text.split()
        return " ".join(words[:max_tokens])

    def embed_batch(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Embed many passages. Sorting by length first keeps padding (wasted work) small."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            out[idx] = self._encode([texts[i] for i in idx])
        return l2_normalize(out)

    def embed_queries(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Embed many questions. The same as passages here; a model that embeds questions
        differently (an instruction prefix, say) overrides this one method."""
        return self.embed_batch(texts, batch_size)

    def embed_query(self, text: str) -> np.ndarray:
        """One question's vector."""
        return self.embed_queries([text])[0]

    def word_vectors(self, words: Sequence[str]) -> np.ndarray | None:
        """Vectors for single words, to match a word with its translation; None when this
        model is not good at words alone (an ensemble with USE is: ensemble.py)."""
        return None

    def embed_query_for(self, text: str, across_languages: bool) -> np.ndarray:
        """The question's search vector, `query_for(embed_query(text), …)`; an ensemble
        computes only the parts that vector weighs."""
        return self.query_for(self.embed_query(text), across_languages)

    def embed_passages_for(self, texts: Sequence[str], across_languages: bool, batch_size: int = 32) -> np.ndarray:
        """Passage vectors to score against an `embed_query_for` vector (an answer's units);
        an ensemble leaves out, as zeros, the parts that vector does not weigh."""
        return self.embed_batch(texts, batch_size)

    def embed_passages_with_tokens(
        self, texts: Sequence[str], across_languages: bool, batch_size: int = 32
    ) -> tuple[np.ndarray, list[np.ndarray] | None]:
        """`embed_passages_for`'s vectors and, from the same run, each text's token states
        (rows at unit length) for matching a question token by token; None when the model
        gives none (only E5 does: e5.py)."""
        return self.embed_passages_for(texts, across_languages, batch_size), None

    def query_tokens(self, text: str) -> np.ndarray | None:
        """A question's token states, to match against `embed_passages_with_tokens`' (None:
        the model gives none)."""
        return None

    def query_for(self, vector: np.ndarray, across_languages: bool) -> np.ndarray:
        """The question's vector for searching in the same language or across languages.

        The same for a single model; an ensemble weighs its parts differently (ensemble.py)."""
        return vector
