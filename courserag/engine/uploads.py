"""The upload pipeline: one learner file in, searchable in that session's pool.

It owns what makes uploads safe to offer: turn-taking between sessions, the session's
reading budget, the same bytes never read twice (a duplicate, or a file that failed before),
and the memory check before a file's chunks join the pool.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

from courserag.engine.parts import EngineParts
from courserag.errors import CourseRagError, IngestError
from courserag.ingest.parsers import safe_display_name
from courserag.ingest.parsers.sandbox import ParseJob
from courserag.ingest.pipeline import IngestConfig, file_size, ingest_file
from courserag.ingest.progress import PendingUpload, PendingUploads, UploadProgress, embed_with_progress
from courserag.results import UploadResult
from courserag.retrieval.session_pool import SessionPool, UploadedFile, UploadGate, estimate_bytes


class UploadService:
    """Adds, lists and removes a session's uploaded files."""

    def __init__(self, parts: EngineParts):
        self.parts = parts
        self.gate = UploadGate(parts.settings.parse.workers)
        self._pending = PendingUploads()

    def add(
        self,
        session_id: str,
        path: Path,
        display_name: str | None = None,
        progress: UploadProgress | None = None,
        client: str | None = None,
    ) -> UploadResult:
        """Parse, chunk, embed and index one uploaded file into the session's pool.

        Uploads take turns (`UploadGate`: a few at a time, one per session, sessions in turn);
        every attempt, refused or not, is charged to the session's reading budget. Until it is
        searchable the file is listed by `pending`, and `progress` (when given) hears each
        step: reading, then indexing with units (pages…) done of total. `client` is who asked
        (the UI's client address): turns are fair between clients, not only sessions.
        """
        name = safe_display_name(display_name or Path(path).name)

        def report(pending: PendingUpload) -> None:
            self._pending.set(session_id, pending)
            if progress is not None:
                progress(pending)

        report(PendingUpload(name))
        try:
            return self._add(session_id, path, name, report, client)
        finally:
            self._pending.finish(session_id, name)

    def _add(self, session_id: str, path: Path, name: str, report: UploadProgress, client: str | None) -> UploadResult:
        limits = self.parts.settings.limits
        try:
            size = file_size(path, name, limits)
            pool = self.parts.sessions.get(session_id)
            pool.check_room(size, name)
            pool.check_budget(name, limits.max_session_files, limits.max_session_parse_s)
            with self.gate.turn(session_id, client):
                return self._ingest(pool, Path(path), name, size, report)
        except CourseRagError as exc:
            return UploadResult(name, False, failure=exc.notice)
        except OSError as exc:
            error = IngestError(name, "file_unreadable", detail=exc.strerror or "I/O error")
            return UploadResult(name, False, failure=error.notice)

    def pending(self, session_id: str | None) -> list[PendingUpload]:
        """The session's files that are being read or indexed (not searchable yet)."""
        return self._pending.of(session_id)

    def _ingest(self, pool: SessionPool, path: Path, name: str, size: int, report: UploadProgress) -> UploadResult:
        settings, embedder = self.parts.settings, self.parts.embedder
        limits = settings.limits
        pool.check_budget(name, limits.max_session_files, limits.max_session_parse_s)  # again: we may have waited
        data = path.read_bytes()
        file_hash = hashlib.sha256(data).hexdigest()
        existing = pool.files.get(name)
        if existing and existing.file_hash == file_hash:
            return UploadResult(name, True, 0, existing.units, existing.doc_type, duplicate=True, unit=existing.unit)
        known = pool.failures.get(file_hash)
        if known is not None:  # the same bytes were refused before: say so again, without reading them
            pool.charge(0.0)
            raise IngestError(name, known.code, **known.params)
        job = ParseJob()
        pool.jobs.add(job)
        started = time.monotonic()
        try:
            config = IngestConfig.of(settings, embedder)
            ingested = ingest_file(data, name, config, origin="upload", file_hash=file_hash, job=job)
        except IngestError as exc:
            if exc.reason_notice.code != "upload_cancelled":
                pool.remember_failure(file_hash, exc.reason_notice)
            raise
        finally:
            pool.charge(time.monotonic() - started)
            pool.jobs.discard(job)
        self.parts.sessions.check_memory(estimate_bytes(ingested.chunks, embedder.dim), name)
        uploaded = UploadedFile(
            name,
            file_hash,
            ingested.doc_type,
            len(ingested.chunks),
            ingested.units,
            size,
            ingested.warnings,
            ingested.unit,
        )
        indexing = PendingUpload(name, "indexing", 0, ingested.units, ingested.unit)
        report(indexing)
        added = pool.add_file(uploaded, ingested.chunks, embed_with_progress(self.parts.embed_texts, indexing, report))
        return UploadResult(name, True, added, ingested.units, ingested.doc_type, ingested.warnings, unit=ingested.unit)

    def remove(self, session_id: str, name: str) -> bool:
        pool = self.parts.sessions.peek(session_id)
        return bool(pool and pool.remove_file(name))

    def files(self, session_id: str | None) -> list[UploadedFile]:
        pool = self.parts.sessions.peek(session_id)
        return list(pool.files.values()) if pool else []
