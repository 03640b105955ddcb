"""Incremental course index builds, shared by build_weaviate_index.py and the instructor tab.

A file is re-indexed only when its SHA-256 changed; files that disappeared have their chunks
removed. A file that cannot be parsed is reported by name with the reason and the build goes
on. Each file is written with one `replace_file` call, which every store makes atomic, so a
build killed at any point leaves a usable index and the next run finishes the work.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from courserag.courses import Course
from courserag.embedders import Embedder
from courserag.errors import CourseRagError
from courserag.ingest import IngestConfig, ingest_file
from courserag.parsers import SUPPORTED_EXTENSIONS
from courserag.settings import Settings
from courserag.stores.base import CourseStore

Progress = Callable[[int, int, str], None]


@dataclass
class BuildSummary:
    course_id: str
    files: int = 0
    indexed: int = 0
    chunks: int = 0
    skipped: int = 0
    deleted: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    planned: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {
            "course_id": self.course_id,
            "files": self.files,
            "indexed": self.indexed,
            "chunks": self.chunks,
            "skipped": self.skipped,
            "deleted": self.deleted,
            "failed": [{"file": f, "reason": r} for f, r in self.failed],
            "seconds": round(self.seconds, 2),
        }

    def text(self) -> str:
        line = (
            f"{self.course_id}: {self.files} files, {self.indexed} indexed ({self.chunks} chunks), "
            f"{self.skipped} unchanged, {self.deleted} removed, {len(self.failed)} failed, {self.seconds:.1f} s"
        )
        return "\n".join([line] + [f"  failed: {f}: {r}" for f, r in self.failed])


def course_files(docs: Path) -> list[Path]:
    """Supported files under the course folder, in a stable order; hidden files skipped."""
    if not docs.is_dir():
        raise CourseRagError("course_folder_missing", folder=str(docs))
    return sorted(
        p
        for p in docs.rglob("*")
        if p.is_file()
        and p.suffix.lower() in SUPPORTED_EXTENSIONS
        and not any(part.startswith(".") for part in p.relative_to(docs).parts)
    )


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def build_course(
    course: Course,
    store: CourseStore,
    embedder: Embedder,
    settings: Settings,
    rebuild: bool = False,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> BuildSummary:
    """Bring the store's copy of one course in line with its folder."""
    started = time.perf_counter()
    summary = BuildSummary(course.id)
    if rebuild and not dry_run:
        store.delete_course(course.id)
    indexed = {} if rebuild else store.files(course.id)
    paths = course_files(course.docs)
    config = IngestConfig.of(settings, embedder)
    summary.files = len(paths)
    present: set[str] = set()
    for position, path in enumerate(paths, start=1):
        source = path.relative_to(course.docs).as_posix()
        present.add(source)
        if progress:
            progress(position, len(paths), source)
        file_hash = file_sha256(path)
        record = indexed.get(source)
        if record is not None and record.file_hash == file_hash:
            summary.skipped += 1
            continue
        if dry_run:
            summary.planned.append((source, "update" if record else "add"))
            continue
        try:
            chunks = ingest_file(path, source, config, origin="course", course_id=course.id, file_hash=file_hash).chunks
            vectors = embedder.embed_batch([c.text for c in chunks], settings.embedding_batch_size)
            store.replace_file(course.id, source, file_hash, chunks, vectors)
        except CourseRagError as exc:
            reason = getattr(exc, "reason", None) or str(exc)
            summary.failed.append((source, reason))
            continue
        summary.indexed += 1
        summary.chunks += len(chunks)
    for source in sorted(set(indexed) - present):
        if dry_run:
            summary.planned.append((source, "delete"))
        else:
            store.delete_file(course.id, source)
        summary.deleted += 1
    summary.seconds = time.perf_counter() - started
    return summary
