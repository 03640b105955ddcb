"""One file in, its chunks out: the one parse -> chunk path for uploads, course builds and
evaluation, so the three cannot disagree on limits or wording.

`ingest_file` parses (unless given a document already parsed), chunks every section on its
own, gives each chunk its provenance, and applies the per-file rules: a file that yields no
chunk is refused ("no_text_extracted"), and one that yields more than
`limits.max_chunks_per_file` is refused ("too_many_chunks"). The size limit has one check and
one message, `parsers.guard.check_size`: the parsers apply it to whatever they are given, and
`file_size` applies it before an upload is read, so an oversized file costs no read.

Parsing runs in a worker process within the config's `budget` (courserag/ingest/parsers/sandbox.py)
for uploads and course builds alike; a config without a budget parses in this process
(evaluation and benchmarks, over files they made themselves).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from courserag.config.settings import Limits, ParseBudget, Settings
from courserag.errors import FileTooLargeError, IngestError
from courserag.i18n.messages import Notice
from courserag.ingest.chunking import CountTokens, approximate_tokens, chunk_sections, make_chunks
from courserag.ingest.parsers import ParsedDocument, parse_bytes, parse_file, safe_display_name
from courserag.ingest.parsers.guard import check_size
from courserag.ingest.parsers.sandbox import ParseJob, parse_sandboxed, read_upload
from courserag.records import Chunk, Origin

# Tokens kept free in the embedder's window: its special tokens and a query/passage prefix.
WINDOW_HEADROOM = 16


@dataclass(frozen=True)
class IngestConfig:
    """The chunking settings and limits ingestion needs, and nothing else."""

    chunk_tokens: int = 320
    overlap_tokens: int = 40
    limits: Limits = field(default_factory=Limits)
    count_tokens: CountTokens = approximate_tokens  # the embedding model's tokenizer in the app
    budget: ParseBudget | None = field(default_factory=ParseBudget)  # None: parse in this process

    @classmethod
    def of(cls, settings: Settings, embedder=None) -> "IngestConfig":
        """Chunks of CHUNK_TOKENS, but never more than the embedder sees (its window) or the
        answerer is given of one source (MAX_CHUNK_TOKENS), counted by its tokenizer."""
        target = min(settings.chunk_tokens, settings.retrieval.max_chunk_tokens)
        if embedder is None:
            return cls(target, settings.chunk_overlap_tokens, settings.limits, budget=settings.parse)
        target = min(target, embedder.window_tokens - WINDOW_HEADROOM)
        return cls(
            target,
            min(settings.chunk_overlap_tokens, target // 4),
            settings.limits,
            embedder.count_tokens,
            settings.parse,
        )


@dataclass(frozen=True)
class IngestedFile:
    """What one file became: what the learner is told about it, and its chunks."""

    name: str  # display name (no directories)
    doc_type: str
    unit: str  # what `units` counts: "page", "slide", "paragraph", "cell" or "line"
    units: int
    warnings: tuple[Notice, ...]
    chunks: tuple[Chunk, ...]


def file_size(path: Path, name: str, limits: Limits) -> int:
    """The size of the file at `path` in bytes, after the one size check.

    Raises FileTooLargeError or EmptyFileError (named `name`), and OSError when the file
    cannot be looked at.
    """
    size = Path(path).stat().st_size
    check_size(name, size, limits)
    return size


def ingest_file(
    source: Path | bytes | ParsedDocument,
    name: str,
    config: IngestConfig,
    *,
    origin: Origin,
    course_id: str | None = None,
    file_hash: str = "",
    job: ParseJob | None = None,
) -> IngestedFile:
    """Parse `source` (a path, an upload's bytes, or a document already parsed) and chunk it.

    `name` is the file's name for users and parsing (an upload's display name, a course file's
    path in its folder); chunks cite it as their source. `job` lets the caller stop a parse
    that is running in its worker. Raises an IngestError subclass for any file that cannot
    be used.
    """
    parsed = _parse(source, name, config, job)
    pieces = chunk_sections(parsed.sections, config.count_tokens, config.chunk_tokens, config.overlap_tokens)
    chunks = make_chunks(pieces, name, origin, course_id, parsed.doc_type, file_hash)
    if not chunks:
        raise IngestError(parsed.name, "no_text_extracted")
    limit = config.limits.max_chunks_per_file
    if len(chunks) > limit:
        raise FileTooLargeError(parsed.name, "too_many_chunks", chunks=len(chunks), limit=limit)
    return IngestedFile(parsed.name, parsed.doc_type, parsed.unit, parsed.units, tuple(parsed.warnings), tuple(chunks))


def _parse(
    source: Path | bytes | ParsedDocument, name: str, config: IngestConfig, job: ParseJob | None
) -> ParsedDocument:
    if isinstance(source, ParsedDocument):
        return source
    if config.budget is None:
        if isinstance(source, (bytes, bytearray, memoryview)):
            return parse_bytes(bytes(source), name, config.limits)
        return parse_file(Path(source), name, config.limits)
    if not isinstance(source, (bytes, bytearray, memoryview)):
        try:
            source = read_upload(Path(source), safe_display_name(name), config.limits)
        except OSError:
            raise IngestError(safe_display_name(name), "file_read_failed") from None
    return parse_sandboxed(bytes(source), name, config.limits, config.budget, job)
