"""Embedders: the `Embedder` base, one `CachingEmbedder`, and the model backends.

`get_embedder` is what the product uses: one model per name and backend per process,
behind a cache of recent questions.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from courserag.embedders.base import Embedder, l2_normalize
from courserag.embedders.caching import CachingEmbedder
from courserag.embedders.sentence_transformers import SentenceTransformerEmbedder, dim_from_config, resolve_model_path
from courserag.embedders.threads import set_cpu_threads

EMBEDDING_BACKENDS = ("torch", "onnx", "onnx-int8")
QUERY_CACHE_SIZE = 512  # recent questions kept (examples, follow-ups, repeated questions)

__all__ = [
    "CachingEmbedder", "EMBEDDING_BACKENDS", "Embedder", "SentenceTransformerEmbedder",
    "dim_from_config", "get_embedder", "l2_normalize", "resolve_model_path", "set_cpu_threads",
]


@lru_cache(maxsize=8)
def get_embedder(model_name: str, backend: str = "torch", cache_dir: str | None = None, threads: int = 0) -> CachingEmbedder:
    """One embedder per model name (and backend) per process: the model is loaded once.

    backend "torch" runs sentence-transformers; "onnx" and "onnx-int8" run the same model
    exported to onnxruntime (see courserag/embedders/onnx.py), kept under cache_dir.
    threads > 0 sets the process's intra-op threads (CPU_THREADS, see set_cpu_threads);
    0 keeps the libraries' defaults. The model's own embedder is `.inner` of the result.
    """
    if threads > 0:
        set_cpu_threads(threads)
    if backend == "torch":
        model: Embedder = SentenceTransformerEmbedder(model_name)
    else:
        from courserag.embedders.onnx import OnnxEmbedder

        model = OnnxEmbedder(model_name, backend, Path(cache_dir) if cache_dir else None, threads)
    return CachingEmbedder(model, max_entries=QUERY_CACHE_SIZE, cache_passages=False)
