"""Which uploads of a session are still being read or indexed, and how far along they are.

A file is searchable only once it is whole in the session's pool; until then the UI shows it
as "indexing…" with real progress (units of the file, pages or slides, done of total), a
question asked meanwhile says that the file was not searched yet, and a refusal then is not
a content gap. The engine keeps one `PendingUploads` and updates it while it works.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Callable, Sequence

# Passages embedded between two progress reports: small enough that a 100-page PDF moves
# visibly, large enough that batching (embedder batch size 8) stays efficient.
PROGRESS_STEP = 32


@dataclass(frozen=True)
class PendingUpload:
    """One file on its way into a session's pool.

    `phase` is "reading" (parsing; `total` is not known yet) or "indexing" (embedding
    `total` units of `unit`, `done` of them so far).
    """

    name: str
    phase: str = "reading"
    done: int = 0
    total: int = 0
    unit: str = ""


UploadProgress = Callable[[PendingUpload], None]


def units_done(embedded: int, texts: int, units: int) -> int:
    """Units of the file (pages, slides…) indexed once `embedded` of its `texts` passages are:
    proportional, since a file's passages are spread over its units. Never all of them
    before the last passage."""
    if texts <= 0 or embedded >= texts:
        return units
    return min(units - 1, units * embedded // texts) if units else 0


class PendingUploads:
    """Session id -> the files being read or indexed there (thread-safe)."""

    def __init__(self):
        self._by_session: dict[str, dict[str, PendingUpload]] = {}
        self._lock = threading.Lock()

    def set(self, session_id: str, pending: PendingUpload) -> None:
        with self._lock:
            self._by_session.setdefault(session_id, {})[pending.name] = pending

    def finish(self, session_id: str, name: str) -> None:
        with self._lock:
            files = self._by_session.get(session_id, {})
            files.pop(name, None)
            if not files:
                self._by_session.pop(session_id, None)

    def of(self, session_id: str | None) -> list[PendingUpload]:
        if session_id is None:
            return []
        with self._lock:
            return list(self._by_session.get(session_id, {}).values())


def embed_with_progress(
    embed: Callable[[list[str]], object],
    pending: PendingUpload,
    report: Callable[[PendingUpload], None],
    step: int = PROGRESS_STEP,
):
    """`embed` for a session pool, in slices of `step` texts, reporting the units done
    after each slice (the pool calls it once with every text it has not embedded yet)."""
    import numpy as np

    def run(texts: Sequence[str]):
        parts = []
        for start in range(0, len(texts), step):
            parts.append(embed(list(texts[start : start + step])))
            done = units_done(start + len(parts[-1]), len(texts), pending.total)
            report(replace(pending, done=done))
        return np.concatenate(parts) if parts else embed([])

    return run
