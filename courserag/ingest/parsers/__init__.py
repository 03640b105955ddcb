"""Turn an uploaded or course file into locatable text sections, safely.

Every file is hostile until proven otherwise. Before any library sees the bytes, `guard`
checks, in this order: the extension is one we read, the file is not empty, it is under the
size limit, its magic bytes agree with its extension, and (for .docx/.pptx) the zip container
is not a bomb and carries no DTD/entity declarations. Only then does the format's parser run,
always on in-memory bytes (nothing is written to disk), and anything a library raises becomes
a `CorruptFileError` that names the file in words a student understands. Every error and
warning is a message code (courserag/i18n/messages.py, "parsers" block), said in English or Chinese.

One module per format: `pdf` (pypdf), `office` (python-docx, python-pptx), `markdown`,
`notebook`, and `text` (shared helpers and the .txt/.py parsers). The libraries are imported
only when a file of their format is parsed.

Locators, which citations show: "page N" (PDF), "slide N" (PPTX), a heading path such as
"Week 5 > AVL rotations" (DOCX, Markdown) or "paragraphs N-M" (DOCX text before any heading),
"cell N" (notebooks) and "lines A-B" (text, Python, and Markdown text before any heading).
"""

from __future__ import annotations

import logging
import os
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from courserag.config.settings import Limits
from courserag.errors import CorruptFileError, IngestError
from courserag.i18n.messages import Notice
from courserag.ingest.parsers.guard import check_magic, check_size, refuse_type
from courserag.ingest.parsers.markdown import parse_markdown
from courserag.ingest.parsers.notebook import parse_notebook
from courserag.ingest.parsers.office import parse_docx, parse_pptx
from courserag.ingest.parsers.pdf import parse_pdf
from courserag.ingest.parsers.text import Extracted, parse_py, parse_txt
from courserag.records import Section

__all__ = [
    "ParsedDocument",
    "SUPPORTED_EXTENSIONS",
    "UNIT_OF_DOC_TYPE",
    "check_type",
    "parse_bytes",
    "parse_file",
    "safe_display_name",
]

logger = logging.getLogger(__name__)

MAX_NAME_CHARS = 120  # display names longer than this are shortened, keeping the extension


@dataclass(frozen=True)
class _Format:
    doc_type: str
    unit: str  # what the parser's `units` count, said as "3 pages read"
    parse: Callable[[bytes, str, Limits], Extracted]


# The one table of what we read: extension -> document type, its unit, its parser.
_FORMATS: dict[str, _Format] = {
    ".pdf": _Format("pdf", "page", parse_pdf),
    ".docx": _Format("docx", "paragraph", parse_docx),
    ".pptx": _Format("pptx", "slide", parse_pptx),
    ".md": _Format("md", "line", parse_markdown),
    ".markdown": _Format("md", "line", parse_markdown),
    ".txt": _Format("txt", "line", parse_txt),
    ".py": _Format("py", "line", parse_py),
    ".ipynb": _Format("ipynb", "cell", parse_notebook),
}
SUPPORTED_EXTENSIONS: frozenset[str] = frozenset(_FORMATS)
UNIT_OF_DOC_TYPE: dict[str, str] = {f.doc_type: f.unit for f in _FORMATS.values()}


@dataclass(frozen=True)
class ParsedDocument:
    """What a file yielded: its sections in reading order, plus what the UI tells the student."""

    name: str  # display file name (sanitised, no directories)
    doc_type: str  # "pdf" | "docx" | "pptx" | "md" | "txt" | "py" | "ipynb"
    sections: list[Section]
    units: int  # how many `unit`s were read ("3 pages read")
    unit: str  # "page" | "slide" | "paragraph" | "cell" | "line"
    warnings: list[Notice] = field(default_factory=list)


def safe_display_name(raw_name: str) -> str:
    """A file name fit to show and cite: no directories, no control characters, not too long.

    "../../x.txt" becomes "x.txt"; a 500-character name is cut to MAX_NAME_CHARS keeping its
    extension ("very long…name.pdf"); a name with nothing left becomes "unnamed file".
    """
    text = unicodedata.normalize("NFC", str(raw_name or ""))
    # Cc: controls (incl. NUL, newlines); Cf: invisible formatting such as the right-to-left
    # override that disguises "cod.exe" as "exe.doc"; Cs: lone surrogates from bad decoding.
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Zl", "Zp"))
    text = text.replace("\\", "/").rsplit("/", 1)[-1]
    text = " ".join(text.split()).strip(" .")  # no hidden ".name", no Windows-invalid "name."
    if not text:
        return "unnamed file"
    if len(text) <= MAX_NAME_CHARS:
        return text
    stem, dot, ext = text.rpartition(".")
    suffix = f".{ext}" if dot and stem and 0 < len(ext) <= 10 and " " not in ext else ""
    head = text[: MAX_NAME_CHARS - len(suffix) - 1].rstrip(" .")
    return f"{head}…{suffix}"


def parse_file(path: Path, display_name: str | None = None, limits: Limits = Limits()) -> ParsedDocument:
    """Parse the file at `path`; `display_name` (default: the path's name) is what users see.

    Raises an `IngestError` subclass, never anything else, for any file that cannot be read.
    """
    path = Path(path)
    name = safe_display_name(display_name or path.name)
    ext = _extension(name) or _extension(path.name)
    fmt = _format_of(name, ext)
    try:
        size = path.stat().st_size
    except OSError:
        raise CorruptFileError(name, "file_open_failed") from None
    check_size(name, size, limits)
    try:
        data = path.read_bytes()
    except OSError:
        raise CorruptFileError(name, "file_read_failed") from None
    check_size(name, len(data), limits)  # it may have changed since stat()
    return _parse_checked(data, name, ext, fmt, limits)


def parse_bytes(data: bytes, display_name: str, limits: Limits = Limits()) -> ParsedDocument:
    """Parse an upload held in memory; nothing is written to disk."""
    name = safe_display_name(display_name)
    ext = _extension(name)
    fmt = _format_of(name, ext)
    check_size(name, len(data), limits)
    return _parse_checked(bytes(data), name, ext, fmt, limits)


def check_type(name: str) -> str:
    """The document type of a file called `name`; UnsupportedFileError for one we do not read."""
    return _format_of(name, _extension(name)).doc_type


def _extension(name: str) -> str:
    return os.path.splitext(name)[1].lower()


def _format_of(name: str, ext: str) -> _Format:
    fmt = _FORMATS.get(ext)
    if fmt is None:
        refuse_type(name, ext)
    return fmt


def _parse_checked(data: bytes, name: str, ext: str, fmt: _Format, limits: Limits) -> ParsedDocument:
    """Run the format's parser; whatever a library raises becomes a CorruptFileError."""
    try:
        check_magic(data, name, ext, fmt.doc_type)
        extracted = fmt.parse(data, name, limits)
    except IngestError:
        raise
    except Exception as exc:  # noqa: BLE001 - the contract: nothing but IngestError escapes
        # MemoryError and RecursionError land here too (deeply nested JSON, huge XML trees).
        logger.warning("could not parse %s (%s)", name, type(exc).__name__)
        logger.debug("parser failure for %s", name, exc_info=True)
        raise CorruptFileError(name, "file_damaged", detail=_short_reason(exc)) from None
    return ParsedDocument(name, fmt.doc_type, extracted.sections, extracted.units, fmt.unit, extracted.warnings)


def _short_reason(exc: BaseException) -> str:
    """The exception's class name and the first line of its message, short and path-free."""
    first_line = (str(exc).strip().splitlines() or [""])[0]
    if not first_line or "/" in first_line or "\\" in first_line or len(first_line) > 100:
        return type(exc).__name__
    return f"{type(exc).__name__}: {first_line}"
