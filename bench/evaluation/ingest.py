"""Step 2: build the course stores from a set through the product's own pipeline.

Every title becomes one course file ("<title>.txt") whose passages are its Sections, cut by
the product's chunker (origin "course"), embedded by the product embedder and written with
`LocalCourseStore.replace_file`. Course scope gives every title its own course id
(`course_id_for`); global scope puts every title into one course, GLOBAL_COURSE.

Mapping chunks to gold passages: each passage is its own Section whose locator is its
doc_id, and a chunk never crosses a Section boundary, so every chunk belongs to exactly one
passage and `chunk.locator == doc_id`.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from pathlib import Path
from typing import Callable, Iterable, Sequence

from bench.evaluation.load import EvalSet, Passage
from courserag.config.settings import Settings
from courserag.courses.directory import Course, CourseDirectory
from courserag.embedders import Embedder
from courserag.ingest.parsers import ParsedDocument
from courserag.ingest.pipeline import IngestConfig, ingest_file
from courserag.lang.script import is_chinese
from courserag.records import Chunk, Section
from courserag.retrieval.sentence_vectors import embed_chunks
from courserag.stores.local import LocalCourseStore

GLOBAL_COURSE = "all"


def course_id_for(title: str) -> str:
    """A store-safe course id for a title: ASCII slug (up to 40 chars) plus 8 hex of its hash,
    so Chinese titles and titles that slug alike stay distinct."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40].strip("-")
    digest = hashlib.sha1(title.encode("utf-8")).hexdigest()[:8]
    return f"{slug}-{digest}" if slug else f"t-{digest}"


def title_chunks(
    title: str, passages: Sequence[Passage], course_id: str, settings: Settings, embedder: Embedder | None = None
) -> tuple[str, list[Chunk]]:
    """(file hash, chunks) of one title's course file: the product's chunking, one Section
    per passage with its doc_id as the locator. The only call into the product's
    parse/chunk pipeline."""
    sections = [Section(text=p.text, locator=p.doc_id) for p in passages]
    document = ParsedDocument(f"{title}.txt", "txt", sections, len(passages), "paragraph")
    file_hash = hashlib.sha256("\x1e".join(f"{p.doc_id}\x1f{p.text}" for p in passages).encode("utf-8")).hexdigest()
    ingested = ingest_file(
        document,
        f"{title}.txt",
        IngestConfig.of(settings, embedder),
        origin="course",
        course_id=course_id,
        file_hash=file_hash,
    )
    return file_hash, list(ingested.chunks)


def ingest(
    eval_set: EvalSet,
    store: LocalCourseStore,
    embedder: Embedder,
    settings: Settings,
    course_of: Callable[[str], str],
) -> int:
    """Write every title as one course file of passage Sections; returns the chunk count."""
    by_title: dict[str, list[Passage]] = OrderedDict()
    for passage in eval_set.passages:
        by_title.setdefault(passage.title, []).append(passage)
    files = [
        (course_of(title), title, *title_chunks(title, passages, course_of(title), settings, embedder))
        for title, passages in by_title.items()
    ]
    # Every title's chunks and sentences in one embedding call (the cache and the batches
    # see them all at once), then split back per title.
    all_chunks = [c for *_, chunks in files for c in chunks]
    vectors, sentences = embed_chunks(
        lambda texts: embedder.embed_batch(texts, settings.embedding_batch_size), all_chunks, embedder.dim
    )
    start = 0
    for course_id, title, file_hash, chunks in files:
        rows = range(start, start + len(chunks))
        store.replace_file(
            course_id, f"{title}.txt", file_hash, chunks, vectors[rows.start : rows.stop], sentences.select(rows)
        )
        start += len(chunks)
    return len(all_chunks)


def build_directory(course_ids: Iterable[str], docs: Path, language: str = "en") -> CourseDirectory:
    """An in-memory course directory for the engine (docs is never read during retrieval).
    `language` is the passages' language, as course_directory.yaml would say it. No
    description and no instructors: directory facts (directory_facts.py) have no gold
    passage, so the sets measure the materials alone."""
    return CourseDirectory(
        tuple(Course(cid, cid, "", language, Path(docs)) for cid in OrderedDict.fromkeys(course_ids))
    )


def corpus_language(eval_set: EvalSet) -> str:
    """ "zh" when most passages are Chinese, else "en"."""
    chinese = sum(is_chinese(p.text) for p in eval_set.passages)
    return "zh" if chinese * 2 > len(eval_set.passages) else "en"
