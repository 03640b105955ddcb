"""One file in, its chunks out: the one parse -> chunk path for uploads, course builds and
evaluation, so the three cannot disagree on limits or wording.

`ingest_file` parses (unless given a document already parsed), chunks every section on its
own, gives each chunk its provenance, and applies the per-file rules: a file that yields no
chunk is refused ("no_text_extracted"), and one that yields more than
`limits.max_chunks_per_file` is refused ("too_many_chunks"). The size limit has one check and
one message, `parsers.guard.check_size`: the parsers apply it to whatever they are given, and
`file_size` applies it before an upload is read, so an oversized file costs no read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from courserag.chunking import CountTokens, approximate_tokens, chunk_sections, make_chunks
from courserag.errors import FileTooLargeError, IngestError
from courserag.messages import Notice
from courserag.parsers import ParsedDocument, parse_bytes, parse_file
from courserag.parsers.guard import check_size
from courserag.records import Chunk, Origin
from courserag.settings import Limits, Settings


# Tokens kept free in the embedder's window: its special tokens and a query/passage prefix.
WINDOW_HEADROOM = 16


@dataclass(frozen=True)
class IngestConfig:
    """The chunking settings and limits ingestion needs, and nothing else."""

    chunk_tokens: int = 320
    overlap_tokens: int = 40
    limits: Limits = field(default_factory=Limits)
    count_tokens: CountTokens = approximate_tokens  # the embedding model's tokenizer in the app

    @classmethod
    def of(cls, settings: Settings, embedder=None) -> "IngestConfig":
        """Chunks of CHUNK_TOKENS, but never more than the embedder sees (its window) or the
        answerer is given of one source (MAX_CHUNK_TOKENS), counted by its tokenizer."""
        target = min(settings.chunk_tokens, settings.retrieval.max_chunk_tokens)
        if embedder is None:
            return cls(target, settings.chunk_overlap_tokens, settings.limits)
        target = min(target, embedder.window_tokens - WINDOW_HEADROOM)
        return cls(target, min(settings.chunk_overlap_tokens, target // 4), settings.limits, embedder.count_tokens)


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
) -> IngestedFile:
    """Parse `source` (a path, an upload's bytes, or a document already parsed) and chunk it.

    `name` is the file's name for users and parsing (an upload's display name, a course file's
    path in its folder); chunks cite it as their source. Raises an IngestError subclass for
    any file that cannot be used.
    """
    if isinstance(source, ParsedDocument):
        parsed = source
    elif isinstance(source, (bytes, bytearray, memoryview)):
        parsed = parse_bytes(bytes(source), name, config.limits)
    else:
        parsed = parse_file(Path(source), name, config.limits)
    pieces = chunk_sections(parsed.sections, config.count_tokens, config.chunk_tokens, config.overlap_tokens)
    chunks = make_chunks(pieces, name, origin, course_id, parsed.doc_type, file_hash)
    if not chunks:
        raise IngestError(parsed.name, "no_text_extracted")
    limit = config.limits.max_chunks_per_file
    if len(chunks) > limit:
        raise FileTooLargeError(parsed.name, "too_many_chunks", chunks=len(chunks), limit=limit)
    return IngestedFile(parsed.name, parsed.doc_type, parsed.unit, parsed.units, tuple(parsed.warnings), tuple(chunks))
