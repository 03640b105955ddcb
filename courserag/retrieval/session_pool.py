"""Per-session upload pools: each browser session's own chunks in its own cached index.

A pool's FAISS + BM25 index is extended when a file is uploaded and rebuilt (from vectors it
already has) only when a file is removed; a query only reads it. Vectors are cached by chunk
text hash, so the same content uploaded twice is never embedded twice. Pools live in a
registry keyed by session id and are released when the session ends or sits idle too long
(swept on a timer, not only when someone uploads).

What uploads may cost is bounded three ways. Each session has a reading budget (files and
seconds of parsing, failed and refused files included) kept in its pool. The registry holds
at most `max_sessions` pools and `max_memory_bytes` of them (estimated), and refuses a new
session or file beyond that, rather than growing or evicting a learner who is still there.
`UploadGate` runs uploads a few at a time app-wide, one per session, sessions taking turns,
so one session's slow files never hold up another session's note.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

import numpy as np

from courserag.errors import SessionLimitError
from courserag.i18n.messages import Notice
from courserag.lang.textnorm import word_tokens
from courserag.records import Chunk, ScoredChunk, content_hash
from courserag.retrieval.chunk_index import ChunkIndex
from courserag.retrieval.sentence_vectors import SentenceVectors, chunk_sentences


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
    """One session's uploaded chunks, searchable by vector and by BM25.

    `sentence_vectors` also embeds each chunk's sentences (courserag/retrieval/sentence_vectors.py). Off for
    the app's uploads: it made a 50-page PDF answerable in 9.3 s instead of 4.7 s (target
    6 s, docs/EVALUATION.md), so notes rank by their chunk vectors."""

    dim: int
    max_chunks: int = 20000
    max_bytes: int = 200 * 1024 * 1024
    sentence_vectors: bool = False
    index: ChunkIndex = field(init=False)
    files: dict[str, UploadedFile] = field(default_factory=dict)
    embedded_texts: int = 0
    memory_bytes: int = 0  # estimated size of the chunks, vectors and tokens held
    attempts: int = 0  # files this session tried to upload, whatever became of them
    parse_seconds: float = 0.0  # time spent reading them, failures included
    failures: OrderedDict = field(default_factory=OrderedDict)  # file hash -> why it was refused
    jobs: set = field(default_factory=set)  # parses running for this session (cancelled on release)
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

    def check_budget(self, name: str, max_files: int, max_seconds: float) -> None:
        """Refuse another file once this session has spent its reading budget."""
        if self.attempts >= max_files or self.parse_seconds >= max_seconds:
            raise SessionLimitError("session_parse_budget", name=name, files=max_files, seconds=max_seconds)

    def charge(self, seconds: float) -> None:
        """Count one upload attempt and the time it took, whatever its outcome."""
        with self._lock:
            self.attempts += 1
            self.parse_seconds += seconds

    def remember_failure(self, file_hash: str, failure) -> None:
        """A file refused once is refused again at once, without being read (last 100)."""
        with self._lock:
            self.failures[file_hash] = failure
            while len(self.failures) > 100:
                self.failures.popitem(last=False)

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
            sentences, owners = chunk_sentences(chunks) if self.sentence_vectors else ([], [])
            hashes = [content_hash(c.text) for c in chunks]
            sentence_hashes = [content_hash(s) for s in sentences]
            texts = dict(zip(hashes + sentence_hashes, [c.text for c in chunks] + sentences))
            # Chunks, then sentences, in calls apart (see sentences.embed_chunks).
            for group in (hashes, sentence_hashes):
                missing = sorted({h for h in group if h not in self._vector_cache})
                if missing:
                    vectors = embed([texts[h] for h in missing])
                    self.embedded_texts += len(missing)
                    self._vector_cache.update(zip(missing, vectors))
            matrix = (
                np.stack([self._vector_cache[h] for h in hashes]) if chunks else np.zeros((0, self.dim), np.float32)
            )
            sentence_matrix = np.stack([self._vector_cache[h] for h in sentence_hashes]) if sentences else None
            found = SentenceVectors.of(owners, sentence_matrix, self.dim) if sentences else None
            self.index.add(chunks, matrix, [word_tokens(c.text) for c in chunks], found)
            self.files[uploaded.name] = uploaded
            self.memory_bytes += estimate_bytes(chunks, self.dim, self.sentence_vectors)
            return len(chunks)

    def remove_file(self, name: str) -> bool:
        """Drop a file and its chunks; the index is rebuilt from cached vectors."""
        with self._lock:
            if self.files.pop(name, None) is None:
                return False
            self.memory_bytes -= estimate_bytes(
                [c for c in self.index.chunks if c.source == name], self.dim, self.sentence_vectors
            )
            self.index.keep(lambda chunk: chunk.source != name)
            return True

    def cancel(self) -> None:
        """Stop the parses running for this session (it was released)."""
        for job in list(self.jobs):
            job.cancel()

    def vector_search(self, vector: np.ndarray, k: int) -> list[ScoredChunk]:
        return self.index.vector_search(vector, k)

    def lexical_search(self, tokens: Sequence[str], k: int) -> list[ScoredChunk]:
        return self.index.lexical_search(tokens, k)

    def best_sentences(self, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        return self.index.best_sentences(chunk_ids, vector)


def estimate_bytes(chunks: Sequence[Chunk], dim: int, sentence_vectors: bool = False) -> int:
    """What holding `chunks` costs a pool: text (str and its tokens, about 3x its UTF-8 size),
    the vector twice (the index and the cache by content), per-object overhead, and with
    `sentence_vectors` theirs (float32 in the cache, int8 and a scale in the index)."""
    sentences = len(chunk_sentences(chunks)[1]) if sentence_vectors else 0
    return sum(3 * len(c.text.encode("utf-8")) + 8 * dim + 600 for c in chunks) + sentences * (5 * dim + 200)


class SessionRegistry:
    """Session id -> pool, with idle release. Thread-safe: Gradio runs handlers in threads."""

    def __init__(
        self,
        dim: int,
        idle_seconds: float = 3600.0,
        max_chunks: int = 20000,
        max_bytes: int = 200 * 1024 * 1024,
        max_sessions: int = 500,
        max_memory_bytes: int = 4096 * 1024 * 1024,
    ):
        self.dim = dim
        self.idle_seconds = idle_seconds
        self.max_chunks = max_chunks
        self.max_bytes = max_bytes
        self.max_sessions = max_sessions
        self.max_memory_bytes = max_memory_bytes
        self._pools: dict[str, SessionPool] = {}
        self._last_used: dict[str, float] = {}
        self._lock = threading.Lock()
        self._sweeper: threading.Thread | None = None
        self._stop = threading.Event()

    def __len__(self) -> int:
        return len(self._pools)

    def get(self, session_id: str) -> SessionPool:
        """The session's pool, created on first use; SessionLimitError when the server already
        holds `max_sessions` pools (after releasing idle ones)."""
        with self._lock:
            self._sweep_locked()
            pool = self._pools.get(session_id)
            if pool is None:
                if len(self._pools) >= self.max_sessions:
                    raise SessionLimitError("server_sessions_full", limit=self.max_sessions)
                pool = SessionPool(self.dim, max_chunks=self.max_chunks, max_bytes=self.max_bytes)
                self._pools[session_id] = pool
                self._start_sweeper()
            self._last_used[session_id] = time.monotonic()
            return pool

    def memory_bytes(self) -> int:
        """The estimated size of every pool together."""
        with self._lock:
            return sum(pool.memory_bytes for pool in self._pools.values())

    def check_memory(self, adding: int, name: str) -> None:
        """Refuse a file whose chunks would take the pools past `max_memory_bytes`."""
        if self.memory_bytes() + adding > self.max_memory_bytes:
            raise SessionLimitError("server_memory_full", name=name)

    def _start_sweeper(self) -> None:
        """Release idle pools on a timer, from the first pool on (no thread before that)."""
        if self._sweeper is None or not self._sweeper.is_alive():
            interval = min(max(self.idle_seconds / 4, 1.0), 60.0)

            def run() -> None:
                while not self._stop.wait(interval):
                    self.sweep()

            self._sweeper = threading.Thread(target=run, name="session-sweeper", daemon=True)
            self._sweeper.start()

    def close(self) -> None:
        """Stop the sweeper (tests; the thread is a daemon otherwise)."""
        self._stop.set()

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
            pool = self._pools.pop(session_id, None)
            self._last_used.pop(session_id, None)
        if pool is not None:
            pool.cancel()

    def sweep(self) -> int:
        with self._lock:
            return self._sweep_locked()

    def _sweep_locked(self) -> int:
        now = time.monotonic()
        idle = [sid for sid, t in self._last_used.items() if now - t > self.idle_seconds and not self._pools[sid].jobs]
        for sid in idle:
            self._pools.pop(sid).cancel()
            self._last_used.pop(sid, None)
        return len(idle)


class UploadGate:
    """Turns for uploads: `workers` at a time app-wide, one at a time per session, and fewer
    than all of them for one client (at most `workers - 1`, at least one).

    Waiting uploads are served by the fewest turns their client has had, then their session,
    then by arrival: a session with ten files queued takes every other turn, not ten in a row,
    and a client that opened eight sessions is one client (its eight 620 KB files once kept
    another learner's 2-line note waiting 306 s). A client is the requester's address as the
    server counts it (courserag/ui/clients.py); without one, each session is its own client.
    """

    def __init__(self, workers: int = 2):
        self.workers = workers
        self.per_client = max(1, workers - 1)
        self._cond = threading.Condition()
        self._running: set[str] = set()
        self._running_clients: Counter[str] = Counter()
        self._waiting: list[tuple[str, str, int]] = []  # (session id, client, ticket) in arrival order
        self._turns: Counter[str] = Counter()  # turns taken by sessions still running or waiting
        self._client_turns: Counter[str] = Counter()  # the same for clients
        self._tickets = 0

    @contextmanager
    def turn(self, session_id: str, client: str | None = None) -> Iterator[None]:
        client = f"client:{client}" if client else f"session:{session_id}"
        with self._cond:
            self._tickets += 1
            entry = (session_id, client, self._tickets)
            self._waiting.append(entry)
            self._cond.wait_for(lambda: self._next() == entry)
            self._waiting.remove(entry)
            self._running.add(session_id)
            self._running_clients[client] += 1
            self._turns[session_id] += 1
            self._client_turns[client] += 1
        try:
            yield
        finally:
            with self._cond:
                self._running.discard(session_id)
                self._running_clients[client] -= 1
                if self._running_clients[client] <= 0:
                    del self._running_clients[client]
                if not any(sid == session_id for sid, _, _ in self._waiting):
                    del self._turns[session_id]
                if client not in self._running_clients and not any(c == client for _, c, _ in self._waiting):
                    del self._client_turns[client]
                self._cond.notify_all()

    def _next(self) -> tuple[str, str, int] | None:
        """The waiting upload that runs next, if a worker is free."""
        if len(self._running) >= self.workers:
            return None
        ready = [
            e for e in self._waiting if e[0] not in self._running and self._running_clients[e[1]] < self.per_client
        ]
        return min(ready, key=lambda e: (self._client_turns[e[1]], self._turns[e[0]], e[2]), default=None)
