"""One text -> vector cache in front of any embedder, in memory and optionally on disk.

The product keeps the learners' recent questions (repeated questions, examples and
follow-ups skip the model); the evaluation and the benchmarks keep every passage and
question on disk between runs, keyed by model name and text hash, so a rerun embeds
nothing; the tests share one model's vectors across many engines.

Passages and questions are cached apart: a model may embed a question differently from
the same text as a passage (see `Embedder.embed_queries`).
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import uuid
from collections import OrderedDict
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from courserag.embedders.base import Embedder

Progress = Callable[[int, int], None]

# New texts are embedded (and written to disk) in parts of this many, so an interrupted
# first run of a large set keeps what it has embedded so far.
PART = 512


class CachingEmbedder(Embedder):
    """`inner`'s vectors, each text embedded once.

    - `disk_dir`: also keep vectors in `<disk_dir>/<model>/<random>.npz` files (`keys`,
      `vectors`), read on first use and written atomically after every part of new texts;
      a damaged file only costs a re-embed.
    - `max_entries`: forget the least recently used texts beyond this many (None: keep all).
    - `cache_passages=False` caches questions only (the product: passages are embedded once
      per build or upload anyway, and the session pool keeps their vectors).
    - `progress(done, total)` is called after every part of new texts.
    """

    def __init__(
        self,
        inner: Embedder,
        disk_dir: Path | str | None = None,
        max_entries: int | None = None,
        cache_passages: bool = True,
        progress: Progress | None = None,
    ):
        if max_entries is not None and max_entries <= 0:
            raise ValueError(f"max_entries must be > 0 or None, but got {max_entries}")
        self.inner = inner
        self.name = inner.name
        self.max_entries = max_entries
        self.cache_passages = cache_passages
        self.progress = progress
        self.embedded = 0  # texts the inner embedder was asked for (cache misses)
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", inner.name)
        self._dir = Path(disk_dir) / slug if disk_dir else None
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._loaded = self._dir is None
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:  # type: ignore[override]
        return self.inner.dim

    def _encode(self, texts: list[str]) -> np.ndarray:
        return self.inner._encode(texts)

    @property
    def window_tokens(self) -> int:  # type: ignore[override]
        return self.inner.window_tokens

    @property
    def reads_chinese(self) -> bool:  # type: ignore[override]
        return self.inner.reads_chinese

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def query_for(self, vector: np.ndarray, across_languages: bool) -> np.ndarray:
        return self.inner.query_for(vector, across_languages)

    def embed_query_for(self, text: str, across_languages: bool) -> np.ndarray:
        if across_languages:
            return self.query_for(self.embed_query(text), True)
        return self._cached(
            [text], "query-in-language", lambda part: np.stack([self.inner.embed_query_for(t, False) for t in part])
        )[0]

    def embed_passages_for(self, texts: Sequence[str], across_languages: bool, batch_size: int = 32) -> np.ndarray:
        if self.cache_passages:  # the evaluation's disk cache holds whole vectors
            return self.embed_batch(texts, batch_size)
        return self.inner.embed_passages_for(texts, across_languages, batch_size)

    def embed_passages_with_tokens(
        self, texts: Sequence[str], across_languages: bool, batch_size: int = 32
    ) -> tuple[np.ndarray, list[np.ndarray] | None]:
        vectors, tokens = self.inner.embed_passages_with_tokens(texts, across_languages, batch_size)
        if self.cache_passages:  # the evaluation's vectors are the cached whole ones
            vectors = self.embed_passages_for(texts, across_languages, batch_size)
        return vectors, tokens

    def query_tokens(self, text: str) -> np.ndarray | None:
        return self.inner.query_tokens(text)

    def word_vectors(self, words: Sequence[str]) -> np.ndarray | None:
        return self.inner.word_vectors(words)

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str:
        return self.inner.truncate_to_tokens(text, max_tokens)

    # -- the cache ------------------------------------------------------------------------

    def _key(self, text: str, kind: str) -> str:
        # Passage keys are those the evaluation and benchmark caches have always used.
        prefix = f"{self.name}\x1f" if kind == "passage" else f"{self.name}\x1f{kind}\x1f"
        return hashlib.sha256(f"{prefix}{text}".encode("utf-8")).hexdigest()[:32]

    def _load(self) -> None:
        """Read the disk cache once, on first use (nothing is read at construction)."""
        if self._loaded:
            return
        self._loaded = True
        if not self._dir.is_dir():
            return
        for path in sorted(self._dir.glob("*.npz")):
            try:
                with np.load(path, allow_pickle=False) as data:
                    self._store(data["keys"].tolist(), np.asarray(data["vectors"], dtype=np.float32))
            except (OSError, ValueError, KeyError):
                continue  # a damaged cache file only costs a re-embed

    def _store(self, keys: Sequence[str], vectors: np.ndarray) -> list[np.ndarray]:
        """Keep vectors (read-only copies, so no caller can change a cached one)."""
        kept = []
        for key, vector in zip(keys, vectors):
            vector = np.array(vector, dtype=np.float32)
            vector.setflags(write=False)
            self._vectors[key] = vector
            self._vectors.move_to_end(key)
            kept.append(vector)
        if self.max_entries is not None:
            while len(self._vectors) > self.max_entries:
                self._vectors.popitem(last=False)
        return kept

    def _save(self, keys: list[str], vectors: np.ndarray) -> None:
        if self._dir is None:
            return
        self._dir.mkdir(parents=True, exist_ok=True)
        target = self._dir / f"{uuid.uuid4().hex}.npz"
        tmp = target.with_suffix(".tmp")
        with tmp.open("wb") as handle:
            np.savez(handle, keys=np.asarray(keys), vectors=np.asarray(vectors, dtype=np.float32))
        os.replace(tmp, target)

    def _cached(self, texts: Sequence[str], kind: str, embed: Callable[[list[str]], np.ndarray]) -> np.ndarray:
        """Vectors of `texts`; the missing ones come from `embed`, in parts of PART."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        keys = [self._key(t, kind) for t in texts]
        with self._lock:
            self._load()
            have = {k: self._vectors[k] for k in keys if k in self._vectors}
            for key in have:
                self._vectors.move_to_end(key)
        missing = list(OrderedDict.fromkeys((k, t) for k, t in zip(keys, texts) if k not in have))
        for start in range(0, len(missing), PART):
            part = missing[start : start + PART]
            part_keys = [k for k, _ in part]
            vectors = embed([t for _, t in part])
            with self._lock:
                have.update(zip(part_keys, self._store(part_keys, vectors)))
                self.embedded += len(part)
            self._save(part_keys, vectors)
            if self.progress:
                self.progress(min(start + PART, len(missing)), len(missing))
        return np.stack([have[k] for k in keys])

    def remember(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Take vectors known to be this model's passages (e.g. read from a built index)."""
        with self._lock:
            self._load()
            self._store([self._key(t, "passage") for t in texts], np.asarray(vectors, dtype=np.float32))

    def clear(self) -> None:
        """Forget every vector held in memory (the disk cache stays)."""
        with self._lock:
            self._vectors.clear()
            self._loaded = self._dir is None

    # -- the Embedder interface -----------------------------------------------------------

    def embed_batch(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        if not self.cache_passages:
            return self.inner.embed_batch(texts, batch_size)
        return self._cached(texts, "passage", lambda part: self.inner.embed_batch(part, batch_size))

    def embed_queries(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        return self._cached(texts, "query", lambda part: self.inner.embed_queries(part, batch_size))
