"""Per-session upload pools: each browser session's own chunks in its own cached index.

A pool's FAISS + BM25 index is extended when a file is uploaded and rebuilt (from vectors it
already has) only when a file is removed; a query only reads it. Vectors are cached by chunk
text hash, so the same content uploaded twice is never embedded twice. Pools live in a
registry keyed by session id and are released when the session ends or sits idle too long.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from courserag.chunk_index import ChunkIndex
from courserag.errors import SessionLimitError
from courserag.messages import Notice
from courserag.records import Chunk, ScoredChunk, content_hash
from courserag.textnorm import word_tokens


@dataclass(frozen=True)
class UploadedFile:
    """What the UI lists under "your notes"."""

    name: str
    file_hash: str
    doc_type: str
    chunks: int
    units: int
    size_bytes: int
    warnings: tuple[Notice, ...] = ()
    unit: str = ""  # what `units` counts ("page", "slide", "line"…)


@dataclass
class SessionPool:
    """One session's uploaded chunks, searchable by vector and by BM25."""

    dim: int
    max_chunks: int = 20000
    max_bytes: int = 200 * 1024 * 1024
    index: ChunkIndex = field(init=False)
    files: dict[str, UploadedFile] = field(default_factory=dict)
    embedded_texts: int = 0
    _vector_cache: dict[str, np.ndarray] = field(default_factory=dict)
    # One learner may upload from two tabs at once: a file's check-replace-add is atomic.
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)

    def __post_init__(self):
        self.index = ChunkIndex(self.dim, "session")

    def __len__(self) -> int:
        return len(self.index)

    @property
    def total_bytes(self) -> int:
        return sum(f.size_bytes for f in self.files.values())

    def check_room(self, size_bytes: int, name: str) -> None:
        """Refuse an upload before parsing it when it would break the session quota."""
        existing = self.files.get(name)
        current = self.total_bytes - (existing.size_bytes if existing else 0)
        if current + size_bytes > self.max_bytes:
            limit_mb = self.max_bytes / 1024 / 1024
            raise SessionLimitError("session_bytes", name=name, limit_mb=f"{limit_mb:.0f}")

    def add_file(
        self,
        uploaded: UploadedFile,
        chunks: Sequence[Chunk],
        embed: Callable[[list[str]], np.ndarray],
    ) -> int:
        """Add (or replace) one file's chunks; embeds only texts the pool has not seen.

        The whole check-replace-add runs under the pool's lock, so two concurrent uploads of
        one file cannot both add their chunks, nor together pass the session's quotas."""
        with self._lock:
            existing = self.files.get(uploaded.name)
            held = sum(1 for c in self.index.chunks if c.source != uploaded.name)
            if held + len(chunks) > self.max_chunks:
                raise SessionLimitError(
                    "session_chunks", name=uploaded.name, held=held, adding=len(chunks), limit=self.max_chunks
                )
            self.check_room(uploaded.size_bytes, uploaded.name)
            if existing is not None:
                self.remove_file(uploaded.name)
            hashes = [content_hash(c.text) for c in chunks]
            missing = sorted({h for h in hashes if h not in self._vector_cache})
            if missing:
                texts = {h: c.text for h, c in zip(hashes, chunks)}
                vectors = embed([texts[h] for h in missing])
                self.embedded_texts += len(missing)
                self._vector_cache.update(zip(missing, vectors))
            matrix = np.stack([self._vector_cache[h] for h in hashes]) if chunks else np.zeros((0, self.dim), np.float32)
            self.index.add(chunks, matrix, [word_tokens(c.text) for c in chunks])
            self.files[uploaded.name] = uploaded
            return len(chunks)

    def remove_file(self, name: str) -> bool:
        """Drop a file and its chunks; the index is rebuilt from cached vectors."""
        with self._lock:
            if self.files.pop(name, None) is None:
                return False
            self.index.keep(lambda chunk: chunk.source != name)
            return True

    def vector_search(self, vector: np.ndarray, k: int) -> list[ScoredChunk]:
        return self.index.vector_search(vector, k)

    def lexical_search(self, tokens: Sequence[str], k: int) -> list[ScoredChunk]:
        return self.index.lexical_search(tokens, k)


class SessionRegistry:
    """Session id -> pool, with idle release. Thread-safe: Gradio runs handlers in threads."""

    def __init__(self, dim: int, idle_seconds: float = 3600.0, max_chunks: int = 20000, max_bytes: int = 200 * 1024 * 1024):
        self.dim = dim
        self.idle_seconds = idle_seconds
        self.max_chunks = max_chunks
        self.max_bytes = max_bytes
        self._pools: dict[str, SessionPool] = {}
        self._last_used: dict[str, float] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._pools)

    def get(self, session_id: str) -> SessionPool:
        """The session's pool, created on first use."""
        with self._lock:
            self._sweep_locked()
            pool = self._pools.get(session_id)
            if pool is None:
                pool = SessionPool(self.dim, max_chunks=self.max_chunks, max_bytes=self.max_bytes)
                self._pools[session_id] = pool
            self._last_used[session_id] = time.monotonic()
            return pool

    def peek(self, session_id: str | None) -> SessionPool | None:
        """The pool if the session has one (a query never creates a pool)."""
        if session_id is None:
            return None
        with self._lock:
            pool = self._pools.get(session_id)
            if pool is not None:
                self._last_used[session_id] = time.monotonic()
            return pool

    def release(self, session_id: str) -> None:
        with self._lock:
            self._pools.pop(session_id, None)
            self._last_used.pop(session_id, None)

    def sweep(self) -> int:
        with self._lock:
            return self._sweep_locked()

    def _sweep_locked(self) -> int:
        now = time.monotonic()
        idle = [sid for sid, t in self._last_used.items() if now - t > self.idle_seconds]
        for sid in idle:
            self._pools.pop(sid, None)
            self._last_used.pop(sid, None)
        return len(idle)
