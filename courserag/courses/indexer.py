"""Incremental course index builds, shared by build_weaviate_index.py and the instructor tab.

A file is re-indexed only when its SHA-256 changed or its stored chunks cannot be read;
files that disappeared have their chunks removed. A file that cannot be parsed is reported
by name with the reason and the build goes on. Each file is written with one `replace_file`
call, which every store makes atomic, so a build killed at any point leaves a usable index
and the next run finishes the work. A rebuild, or a build after the embedding model changed,
re-embeds everything into a new generation (`CourseStore.stage`) that replaces the old one
in one step: learners are answered from the old index until then.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from courserag.config.persistence import file_sha256
from courserag.config.settings import Settings
from courserag.courses.directory import Course
from courserag.embedders import Embedder, vector_space
from courserag.errors import CourseRagError
from courserag.ingest.parsers import SUPPORTED_EXTENSIONS
from courserag.ingest.pipeline import IngestConfig, ingest_file
from courserag.retrieval.sentence_vectors import embed_chunks
from courserag.stores.base import CourseStore
from courserag.stores.fallback import for_writes

Progress = Callable[[int, int, str], None]


@dataclass
class BuildSummary:
    course_id: str
    files: int = 0
    indexed: int = 0
    chunks: int = 0
    skipped: int = 0
    deleted: int = 0
    repaired: int = 0  # files whose stored chunks could not be read, indexed again
    failed: list[tuple[str, str]] = field(default_factory=list)
    planned: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    reason: str = ""  # why every file was re-embedded ("" for an incremental build)
    kept_previous: bool = False  # a rebuild in which no file could be indexed changes nothing

    def to_dict(self) -> dict:
        return {
            "course_id": self.course_id,
            "files": self.files,
            "indexed": self.indexed,
            "chunks": self.chunks,
            "skipped": self.skipped,
            "deleted": self.deleted,
            "repaired": self.repaired,
            "reason": self.reason,
            "kept_previous": self.kept_previous,
            "failed": [{"file": f, "reason": r} for f, r in self.failed],
            "seconds": round(self.seconds, 2),
        }

    def text(self) -> str:
        line = (
            f"{self.course_id}: {self.files} files, {self.indexed} indexed ({self.chunks} chunks), "
            f"{self.skipped} unchanged, {self.deleted} removed, {len(self.failed)} failed, {self.seconds:.1f} s"
        )
        if self.repaired:
            line += f", {self.repaired} repaired"
        notes = [f"  re-embedded every file: {self.reason}"] if self.reason and self.reason != "rebuild" else []
        if self.kept_previous:
            notes.append("  no file could be indexed, so the previous index was kept")
        return "\n".join([line] + notes + [f"  failed: {f}: {r}" for f, r in self.failed])


def course_files(docs: Path) -> list[Path]:
    """Supported files under the course folder, in a stable order; hidden files skipped, and
    links that lead outside the folder too (see `linked_outside`)."""
    return _walk(docs)[0]


def linked_outside(docs: Path) -> list[Path]:
    """Supported files in the course folder that are links to something outside it. They are
    refused: a link to /etc or to another course's files would be indexed and quoted to every
    learner, though the file route would not serve it."""
    return _walk(docs)[1]


def _walk(docs: Path) -> tuple[list[Path], list[Path]]:
    if not docs.is_dir():
        raise CourseRagError("course_folder_missing", folder=str(docs))
    root = docs.resolve()
    inside: list[Path] = []
    outside: list[Path] = []
    for path in sorted(docs.rglob("*")):
        if (
            not path.is_file()
            or path.suffix.lower() not in SUPPORTED_EXTENSIONS
            or any(part.startswith(".") for part in path.relative_to(docs).parts)
        ):
            continue
        try:
            within = path.resolve(strict=True).is_relative_to(root)
        except (OSError, RuntimeError):  # a broken or looping link
            within = False
        (inside if within else outside).append(path)
    return inside, outside


def _plan(store: CourseStore, course: Course, settings: Settings, rebuild: bool) -> tuple[str, dict, frozenset[str]]:
    """(why everything is re-embedded or "", what is indexed now, unreadable files)."""
    built, space = store.index_model(course.id), vector_space(settings.embedding_model, settings.embedding_backend)
    if rebuild:
        return "rebuild", {}, frozenset()
    if built is not None and built != space:
        return f"the embedding model changed from {built} to {space}", {}, frozenset()
    return "", store.files(course.id), store.unreadable_files(course.id)


def build_course(
    course: Course,
    store: CourseStore,
    embedder: Embedder,
    settings: Settings,
    rebuild: bool = False,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> BuildSummary:
    """Bring the store's copy of one course in line with its folder.

    Incremental by default; everything is re-embedded into a new generation (switched to
    in one step when done) for `rebuild` or when the index was built with another model.
    A build compares against, and writes to, the configured store only (`for_writes`): never
    the local copy that answers learners while Weaviate is down.
    """
    store = for_writes(store)
    started = time.perf_counter()
    summary = BuildSummary(course.id)
    summary.reason, indexed, broken = _plan(store, course, settings, rebuild)
    before = set(store.files(course.id)) if summary.reason else set(indexed)
    stage = store.stage(course.id) if summary.reason and not dry_run else None
    write = stage.put if stage is not None else lambda *args: store.replace_file(course.id, *args)
    paths, refused = _walk(course.docs)
    summary.failed += [
        (p.relative_to(course.docs).as_posix(), "it links to a file outside the course folder") for p in refused
    ]
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
        if record is not None and record.file_hash == file_hash and source not in broken:
            summary.skipped += 1
            continue
        if dry_run:
            summary.planned.append(
                (source, "repair" if source in broken else "update" if record or source in before else "add")
            )
            continue
        try:
            chunks = ingest_file(path, source, config, origin="course", course_id=course.id, file_hash=file_hash).chunks
            vectors, sentences = embed_chunks(
                lambda texts: embedder.embed_batch(texts, settings.embedding_batch_size), chunks, embedder.dim
            )
            write(source, file_hash, chunks, vectors, sentences)
        except CourseRagError as exc:
            summary.failed.append((source, getattr(exc, "reason", None) or str(exc)))
            continue
        summary.indexed += 1
        summary.repaired += source in broken
        summary.chunks += len(chunks)
    summary.deleted = len(before - present)
    if dry_run:
        summary.planned += [(source, "delete") for source in sorted(before - present)]
    elif stage is not None:
        _finish(stage, summary, paths)
    else:
        for source in sorted(before - present):
            store.delete_file(course.id, source)
    summary.seconds = time.perf_counter() - started
    return summary


def _finish(stage, summary: BuildSummary, paths: list[Path]) -> None:
    """Switch to the new generation, unless not one file made it (then keep the old one)."""
    if summary.indexed == 0 and paths:
        stage.abort()
        summary.kept_previous = True
    else:
        stage.commit()
