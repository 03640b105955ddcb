"""Turn an uploaded or course file into locatable text sections, safely.

Every file is hostile until proven otherwise. Before any library sees the bytes we check, in
this order: the extension is one we read, the file is not empty, it is under the size limit,
its magic bytes agree with its extension, and (for .docx/.pptx) the zip container is not a
bomb and carries no DTD/entity declarations. Only then do pypdf, python-docx or python-pptx
run, always on in-memory bytes (nothing is written to disk), and anything they raise becomes a
`CorruptFileError` that names the file in words a student understands.

Locators, which citations show: "page N" (PDF), "slide N" (PPTX), a heading path such as
"Week 5 > AVL rotations" (DOCX, Markdown) or "paragraphs N-M" (DOCX text before any heading),
"cell N" (notebooks) and "lines A-B" (text, Python, and Markdown text before any heading).
"""

from __future__ import annotations

import codecs
import io
import json
import logging
import os
import re
import unicodedata
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from courserag.errors import (
    CorruptFileError,
    EmptyFileError,
    EncryptedFileError,
    FileTooLargeError,
    IngestError,
    UnsupportedFileError,
)
from courserag.records import Section
from courserag.settings import Limits

logger = logging.getLogger(__name__)

_DOC_TYPES = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".pptx": "pptx",
    ".md": "md",
    ".markdown": "md",
    ".txt": "txt",
    ".py": "py",
    ".ipynb": "ipynb",
}
SUPPORTED_EXTENSIONS: frozenset[str] = frozenset(_DOC_TYPES)

_MB = 1024 * 1024
MAX_NAME_CHARS = 120  # display names longer than this are shortened, keeping the extension
MAX_HEADING_CHARS = 200  # a heading longer than this is cut in the heading path
SECTION_MAX_CHARS = 6000  # line-based sections are cut here even inside a 40-60 line block
SECTION_MIN_LINES, SECTION_MAX_LINES = 40, 60
OUTPUT_MAX_CHARS = 2000  # one notebook output
CELL_OUTPUT_MAX_CHARS = 4000  # all outputs of one notebook cell
BINARY_SHARE = 0.05  # more control/undecodable characters than this and it is not text
LEGACY_ASCII_SHARE = 0.85  # mostly-ASCII non-UTF-8 text is read as Windows-1252
MAX_SHAPE_DEPTH = 20  # nested PowerPoint groups deeper than this are ignored

_SUPPORTED_WORDS = (
    "upload a PDF, Word (.docx), PowerPoint (.pptx), Markdown, text (.txt), Python (.py) "
    "or Jupyter notebook (.ipynb) file"
)
_DAMAGED = "the file is damaged or not in the format its name says, and could not be read"
_LOCKED = "is password-protected; remove the password and upload it again"


@dataclass(frozen=True)
class ParsedDocument:
    """What a file yielded: its sections in reading order, plus what the UI tells the student."""

    name: str  # display file name (sanitised, no directories)
    doc_type: str  # "pdf" | "docx" | "pptx" | "md" | "txt" | "py" | "ipynb"
    sections: list[Section]
    units: int  # pages / slides / paragraphs / cells / lines read ("pages read" in the UI)
    warnings: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- public API


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
    doc_type = _check_type(name, ext)
    try:
        size = path.stat().st_size
    except OSError:
        raise CorruptFileError(name, "the file could not be opened") from None
    _check_size(name, size, limits)
    try:
        data = path.read_bytes()
    except OSError:
        raise CorruptFileError(name, "the file could not be read") from None
    _check_size(name, len(data), limits)  # it may have changed since stat()
    return _parse_checked(data, name, ext, doc_type, limits)


def parse_bytes(data: bytes, display_name: str, limits: Limits = Limits()) -> ParsedDocument:
    """Parse an upload held in memory; nothing is written to disk."""
    name = safe_display_name(display_name)
    ext = _extension(name)
    doc_type = _check_type(name, ext)
    _check_size(name, len(data), limits)
    return _parse_checked(bytes(data), name, ext, doc_type, limits)


# --------------------------------------------------------------------------- checks before parsing


def _extension(name: str) -> str:
    return os.path.splitext(name)[1].lower()


def _check_type(name: str, ext: str) -> str:
    if ext in _DOC_TYPES:
        return _DOC_TYPES[ext]
    if not ext:
        raise UnsupportedFileError(name, f"the file has no extension, so its type is unknown; {_SUPPORTED_WORDS}")
    if ext in (".doc", ".ppt"):
        raise UnsupportedFileError(
            name, f"old-format {ext} files are not supported; open it and save it as {ext}x, then upload that"
        )
    raise UnsupportedFileError(name, f"{ext} files are not supported; {_SUPPORTED_WORDS}")


def _check_size(name: str, size: int, limits: Limits) -> None:
    if size == 0:
        raise EmptyFileError(name, "the file is empty (0 bytes)")
    if size > limits.max_file_mb * _MB:
        shown = f"{size / _MB:.1f} MB" if size >= _MB / 10 else f"{size / 1024:.0f} KB"
        raise FileTooLargeError(name, f"the file is {shown}, over the upload limit of {limits.max_file_mb:g} MB")


# Leading bytes of formats people upload by mistake. `True` marks formats that can never be a
# text file, so a .txt/.md/.py/.ipynb starting with them is rejected.
_SIGNATURES: tuple[tuple[bytes, str, bool], ...] = (
    (b"%PDF-", "a PDF", True),
    (b"PK\x03\x04", "zip", True),
    (b"PK\x05\x06", "zip", True),
    (b"\x89PNG\r\n\x1a\n", "a PNG image", True),
    (b"\xff\xd8\xff", "a JPEG image", True),
    (b"GIF87a", "a GIF image", True),
    (b"GIF89a", "a GIF image", True),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old-format Office file (.doc, .ppt or .xls)", True),
    (b"\x1f\x8b", "a gzip archive", True),
    (b"Rar!\x1a\x07", "a RAR archive", True),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", True),
    (b"\x7fELF", "a program", True),
    (b"II*\x00", "a TIFF image", True),
    (b"MM\x00*", "a TIFF image", True),
    (b"MZ", "a Windows program", False),
    (b"{\\rtf", "an RTF document", False),
    (b"ID3", "an MP3 audio file", False),
    (b"OggS", "an audio file", False),
    (b"RIFF", "a media file (audio, video or image)", False),
)


def _describe_zip(data: bytes) -> tuple[str, str]:
    """(doc_type or "", description) of a zip, from member names in its central directory."""
    if b"word/document" in data:
        return "docx", "a Word document (.docx)"
    if b"ppt/presentation" in data:
        return "pptx", "a PowerPoint presentation (.pptx)"
    if b"xl/workbook" in data:
        return "", "an Excel workbook (.xlsx)"
    if b"mimetypeapplication/vnd.oasis.opendocument" in data:
        return "", "an OpenDocument file (.odt, .odp or .ods)"
    return "", "a zip archive"


def _sniff(data: bytes) -> tuple[str, str, bool] | None:
    """(doc_type or "", description, never-text) of what the bytes look like, if recognised."""
    for magic, description, binary in _SIGNATURES:
        if data.startswith(magic):
            if description == "zip":
                return (*_describe_zip(data), True)
            return ("pdf" if magic == b"%PDF-" else ""), description, binary
    if b"%PDF" in data[:1024]:  # PDF readers accept junk before the header; text files may mention it
        return "pdf", "a PDF", False
    if data[4:8] == b"ftyp":
        return "", "a video or audio file (MP4)", True
    return None


def _mismatch(name: str, ext: str, data: bytes, expected: str) -> CorruptFileError:
    sniffed = _sniff(data)
    if sniffed is None or sniffed[0] == _DOC_TYPES.get(ext):
        kind = expected.split(" ", 1)[1]  # "a PDF" -> "PDF"
        return CorruptFileError(name, f"the file is named {ext} but is not a valid {kind}; it may be damaged")
    doc_type, description, _ = sniffed
    hint = ""
    if doc_type and doc_type != _DOC_TYPES.get(ext):
        hint = f"; rename it to .{doc_type} and upload it again"
    return CorruptFileError(name, f"the file is named {ext} but looks like {description}, not {expected}{hint}")


def _is_encrypted_office(data: bytes) -> bool:
    # Password-protected .docx/.pptx files are not zips but OLE containers holding an
    # "EncryptedPackage" stream (MS-OFFCRYPTO); the stream name is stored in UTF-16.
    return data.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1") and "EncryptedPackage".encode("utf-16-le") in data


def _check_magic(data: bytes, name: str, ext: str, doc_type: str) -> None:
    if doc_type == "pdf":
        if b"%PDF" not in data[:1024]:
            raise _mismatch(name, ext, data, "a PDF")
    elif doc_type in ("docx", "pptx"):
        label = _OOXML[doc_type][1]
        if _is_encrypted_office(data):
            raise EncryptedFileError(name, f"this file {_LOCKED}")
        if not data.startswith(b"PK\x03\x04"):
            raise _mismatch(name, ext, data, label)
    else:
        sniffed = _sniff(data)
        if sniffed is not None and sniffed[2]:
            raise _mismatch(name, ext, data, "a text file")


# --------------------------------------------------------------------------- dispatch


def _parse_checked(data: bytes, name: str, ext: str, doc_type: str, limits: Limits) -> ParsedDocument:
    """Run the format's parser; whatever a library raises becomes a CorruptFileError."""
    try:
        _check_magic(data, name, ext, doc_type)
        return _PARSERS[doc_type](data, name, limits)
    except IngestError:
        raise
    except Exception as exc:  # noqa: BLE001 - the contract: nothing but IngestError escapes
        # MemoryError and RecursionError land here too (deeply nested JSON, huge XML trees).
        logger.warning("could not parse %s (%s)", name, type(exc).__name__)
        logger.debug("parser failure for %s", name, exc_info=True)
        raise CorruptFileError(name, f"{_DAMAGED} ({_short_reason(exc)})") from None


def _short_reason(exc: BaseException) -> str:
    """The exception's class name and the first line of its message, short and path-free."""
    first_line = (str(exc).strip().splitlines() or [""])[0]
    if not first_line or "/" in first_line or "\\" in first_line or len(first_line) > 100:
        return type(exc).__name__
    return f"{type(exc).__name__}: {first_line}"


# --------------------------------------------------------------------------- text helpers

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # after newlines are normalised
_NOT_TEXT = re.compile("[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f-\x9f\ufffd]")


def _clean(text: str) -> str:
    """Unix newlines, no ANSI colour codes, no control characters (tabs and newlines stay)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    return _CONTROL.sub("", text)


_CJK_CHAR = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
# A line nearly as long as the page's longest line that ends in a Chinese character was
# wrapped by the page width; a shorter one (a title, a header, a list item) ended on purpose.
_WRAPPED_SHARE = 0.8


def _join_cjk_lines(text: str) -> str:
    """pypdf breaks lines where the page wrapped them, also between two Chinese characters;
    Chinese has no spaces, so such a break splits a word for the segmenter. Rejoin them."""
    lines = [line.strip() for line in text.split("\n")]

    def width(line: str) -> int:  # a Chinese character is about two Latin ones wide
        return len(line) + len(_CJK_CHAR.findall(line))

    widest = max((width(line) for line in lines), default=0)
    out: list[str] = []
    previous_raw = ""
    for line in lines:
        if (
            out
            and line
            and previous_raw
            and width(previous_raw) >= _WRAPPED_SHARE * widest
            and _CJK_CHAR.match(previous_raw[-1])
            and previous_raw[-1] not in "。！？；：）」』"
            and _CJK_CHAR.match(line[0])
        ):
            out[-1] += line
        else:
            out.append(line)
        previous_raw = line
    return "\n".join(out)


def _squash(text: str) -> str:
    """Trim each line and drop empty ones: for short texts from paragraphs, cells and shapes."""
    return "\n".join(line.strip() for line in _clean(text).split("\n") if line.strip())


def _ranges(numbers: list[int]) -> str:
    """[1, 2, 3, 7] -> "1-3, 7" (numbers ascending, at least one)."""
    spans: list[list[int]] = []
    for number in numbers:
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans)


def _numbered(noun: str, numbers: list[int], singular_verb: str, plural_verb: str) -> str:
    if len(numbers) == 1:
        return f"{noun} {numbers[0]} {singular_verb}"
    return f"{noun}s {_ranges(numbers)} {plural_verb}"


def _truncation_warning(limit: int) -> str:
    return f"the text was cut at {limit:,} characters; the rest of the file was not read"


class _TextBudget:
    """Counts extracted characters against limits.max_text_chars (the one mutable helper here)."""

    def __init__(self, limit: int):
        self.left = limit
        self.exhausted = False

    def take(self, text: str) -> str:
        if len(text) <= self.left:
            self.left -= len(text)
            return text
        kept, self.left, self.exhausted = text[: self.left], 0, True
        return kept


def _decode_text(data: bytes, name: str) -> tuple[str, str | None]:
    """Decode a text file: BOMs, UTF-8, GB18030/GBK, then detection; reject binary data.

    Returns the text and, when the encoding had to be guessed, a warning for the student.
    """
    not_text = CorruptFileError(
        name,
        "this does not look like a text file (it holds binary data or text in an encoding we "
        "cannot read); save it as UTF-8 text and upload it again",
    )
    text: str | None = None
    note: str | None = None
    for bom, encoding in (
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ):
        if data.startswith(bom):
            text = data[len(bom) :].decode(encoding, errors="replace")
            break
    else:
        if b"\x00" in data:
            raise not_text
        text, note = _decode_without_bom(data)
    if text is None or _looks_binary(text):
        raise not_text
    return text, note


def _decode_without_bom(data: bytes) -> tuple[str | None, str | None]:
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        if exc.reason == "unexpected end of data" and exc.start >= len(data) - 3:
            return data[: exc.start].decode("utf-8", errors="replace"), None  # cut mid-character
    try:
        # GB18030 is a superset of GBK and GB2312: one decoder for Simplified Chinese files.
        return data.decode("gb18030"), None
    except UnicodeDecodeError:
        pass
    lenient = data.decode("utf-8", errors="replace")
    if lenient.count("\ufffd") <= max(1, len(lenient) // 100):
        return lenient, "a few bytes were not valid UTF-8 and were replaced"
    ascii_share = sum(1 for b in data[:65536] if b < 0x80) / min(len(data), 65536)
    if ascii_share >= LEGACY_ASCII_SHARE:
        # Mostly-ASCII files with some accents or "smart quotes" are nearly always Windows
        # Western text; charset detection guesses badly on them (it picks Mac Central European).
        return data.decode("cp1252", errors="replace"), "the file is not UTF-8; it was read as Windows-1252"
    try:
        import charset_normalizer
    except ImportError:  # pragma: no cover - it ships with requests, which Gradio needs
        return None, None
    best = charset_normalizer.from_bytes(data).best()
    if best is None or not best.encoding:
        return None, None
    return str(best), f"the file is not UTF-8; it was read as {best.encoding} (check that the text looks right)"


def _looks_binary(text: str) -> bool:
    if not text:
        return False
    sample = text if len(text) <= 4 * _MB else text[: 2 * _MB] + text[-2 * _MB :]
    return len(_NOT_TEXT.findall(sample)) > BINARY_SHARE * len(sample)


def _read_text(data: bytes, name: str, limits: Limits) -> tuple[str, list[str]]:
    """Decoded, cleaned text within the character budget, plus warnings; never empty."""
    text, note = _decode_text(data, name)
    text = _clean(text)
    warnings = [note] if note else []
    if len(text) > limits.max_text_chars:
        text = text[: limits.max_text_chars]
        warnings.append(_truncation_warning(limits.max_text_chars))
    if not text.strip():
        raise EmptyFileError(name, "the file contains no text")
    return text, warnings


def _line_count(lines: list[str]) -> int:
    return len(lines) - (1 if lines and lines[-1] == "" else 0)


# --------------------------------------------------------------------------- line-range sections


def _after_blank(line: str, previous: str) -> bool:
    return not previous.strip() and bool(line.strip())


_PY_DEF = re.compile(r"(?:async[ \t]+)?(def|class)[ \t]+(\w+)")


def _python_boundary(line: str, previous: str) -> bool:
    """A good place to start a new section of Python: a top-level def/class, or after a blank."""
    if line.startswith("@") or _PY_DEF.match(line):
        return not previous.startswith("@")
    return _after_blank(line, previous)


def _python_heading(text: str) -> str:
    for line in text.split("\n"):
        match = _PY_DEF.match(line)
        if match:
            return f"{match.group(1)} {match.group(2)}"
    return ""


def _line_sections(
    lines: list[str],
    boundary: Callable[[str, str], bool] = _after_blank,
    heading: Callable[[str], str] = lambda text: "",
) -> list[Section]:
    """Group lines into "lines A-B" sections of SECTION_MIN_LINES..SECTION_MAX_LINES lines.

    A section ends early at a boundary (a blank line, a def/class) once it has the minimum,
    and always before SECTION_MAX_CHARS; a single line longer than that (a 10 MB minified
    file) is cut into pieces that all cite that line. Linear in the input size.
    """
    sections: list[Section] = []

    def emit(start: int, end: int) -> None:  # lines[start:end], blank edges trimmed
        while start < end and not lines[start].strip():
            start += 1
        while end > start and not lines[end - 1].strip():
            end -= 1
        if start < end:
            text = "\n".join(lines[start:end])
            locator = f"lines {start + 1}-{end}"
            sections.append(Section(text=text, locator=locator, heading=heading(text)))

    start, chars = 0, 0
    for index, line in enumerate(lines):
        if len(line) > SECTION_MAX_CHARS:
            emit(start, index)
            sections.extend(_long_line_sections(line, index + 1))
            start, chars = index + 1, 0
            continue
        count = index - start
        if count and (
            count >= SECTION_MAX_LINES
            or chars + len(line) > SECTION_MAX_CHARS
            or (count >= SECTION_MIN_LINES and boundary(line, lines[index - 1]))
        ):
            emit(start, index)
            start, chars = index, 0
        chars += len(line) + 1
    emit(start, len(lines))
    return sections


def _long_line_sections(line: str, number: int) -> Iterator[Section]:
    """Cut one huge line into SECTION_MAX_CHARS pieces, at a space when there is one nearby."""
    position = 0
    while position < len(line):
        end = min(position + SECTION_MAX_CHARS, len(line))
        if end < len(line):
            space = line.rfind(" ", position + SECTION_MAX_CHARS // 2, end)
            end = space + 1 if space != -1 else end
        piece = line[position:end].strip()
        if piece:
            yield Section(text=piece, locator=f"lines {number}-{number}")
        position = end


# --------------------------------------------------------------------------- PDF


def _parse_pdf(data: bytes, name: str, limits: Limits) -> ParsedDocument:
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
    except Exception:  # noqa: BLE001 - any parse failure means the same thing to a student
        logger.debug("pypdf could not open %s", name, exc_info=True)
        raise CorruptFileError(
            name,
            "this PDF is damaged or incomplete (it may have been cut off while downloading); "
            "open it on your computer, save a new copy and upload that",
        ) from None

    if reader.is_encrypted:
        # Files with only an owner password ("no printing") open with the empty user password.
        try:
            opened = reader.decrypt("")
        except (DependencyError, NotImplementedError):
            raise EncryptedFileError(
                name, "this PDF is encrypted with a method we cannot open; save an unprotected copy and upload that"
            ) from None
        if not opened:
            raise EncryptedFileError(name, f"this PDF {_LOCKED}")

    # The declared /Count is checked first: counting pages walks the whole page tree, and a
    # hostile 50 MB file can hold a million tiny pages.
    try:
        declared = int(reader.root_object["/Pages"].get_object().get("/Count", 0))
    except Exception:  # noqa: BLE001 - a broken or missing count is checked below, by walking
        declared = 0
    if declared > limits.max_pages:
        raise FileTooLargeError(name, f"this PDF has {declared:,} pages, over the limit of {limits.max_pages:,}")
    try:
        page_count = len(reader.pages)
    except FileNotDecryptedError:
        raise EncryptedFileError(name, f"this PDF {_LOCKED}") from None
    if page_count > limits.max_pages:
        raise FileTooLargeError(name, f"this PDF has {page_count:,} pages, over the limit of {limits.max_pages:,}")
    if page_count == 0:
        raise EmptyFileError(name, "this PDF has no pages")

    budget = _TextBudget(limits.max_text_chars)
    sections: list[Section] = []
    blank: list[int] = []
    broken: list[int] = []
    pages_read = 0
    for number in range(1, page_count + 1):
        pages_read = number
        try:
            raw = reader.pages[number - 1].extract_text() or ""
        except Exception:  # noqa: BLE001 - one bad page must not lose the others
            logger.debug("pypdf could not read page %d of %s", number, name, exc_info=True)
            broken.append(number)
            continue
        text = _join_cjk_lines(_clean(raw)).strip()
        if not text:
            blank.append(number)
            continue
        sections.append(Section(text=budget.take(text), locator=f"page {number}"))
        if budget.exhausted:
            break

    if not sections:
        if broken and len(broken) == pages_read:
            raise CorruptFileError(name, "none of the pages of this PDF could be read; it may be damaged")
        raise EmptyFileError(
            name,
            "no text could be found in this PDF; it looks like a scanned (image-only) document, "
            "and OCR is not supported; upload a PDF with selectable text",
        )
    warnings: list[str] = []
    if blank:
        warnings.append(_numbered("page", blank, "has no text layer (scanned?)", "have no text layer (scanned?)"))
    if broken:
        warnings.append(_numbered("page", broken, "could not be read (damaged?)", "could not be read (damaged?)"))
    if budget.exhausted:
        warnings.append(_truncation_warning(limits.max_text_chars))
    return ParsedDocument(name=name, doc_type="pdf", sections=sections, units=pages_read, warnings=warnings)


# --------------------------------------------------------------------------- Office zip containers

_OOXML = {
    "docx": ("word/", "a Word document (.docx)"),
    "pptx": ("ppt/", "a PowerPoint presentation (.pptx)"),
}
# Members never parsed as XML by python-docx/python-pptx; scanning them (SVG icons often carry
# a harmless DOCTYPE) would only reject good files.
_MEDIA_SUFFIXES = (
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".emf", ".wmf", ".svg", ".wdp",
    ".jfif", ".webp", ".ico", ".mp3", ".mp4", ".m4a", ".wav", ".wma", ".wmv", ".mov", ".avi",
    ".mpg", ".mpeg", ".bin", ".xlsx", ".xlsb", ".docx", ".pptx", ".ttf", ".otf", ".odttf", ".fntdata",
)
_DTD_MARKERS = tuple(  # lower-cased, in every encoding an XML part may use
    marker.encode(encoding)
    for marker in ("<!doctype", "<!entity")
    for encoding in ("ascii", "utf-16-le", "utf-16-be")
)
_ZIP_CENTRAL_ENTRY = b"PK\x01\x02"


def _check_ooxml(data: bytes, name: str, doc_type: str, limits: Limits) -> None:
    """Zip-bomb, type and XML-entity checks, before python-docx/python-pptx read anything."""
    prefix, label = _OOXML[doc_type]
    too_many = FileTooLargeError(
        name, f"this file holds more than {limits.max_zip_entries:,} archive entries, over the limit"
    )
    # Counting central-directory signatures costs nothing and bounds the entry count before
    # zipfile builds one object per entry (a 50 MB zip can declare a million entries).
    if data.count(_ZIP_CENTRAL_ENTRY) > limits.max_zip_entries:
        raise too_many
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
        reason = "the file is damaged (its zip container cannot be opened); it may be incomplete"
        raise CorruptFileError(name, reason) from None
    with archive:
        infos = archive.infolist()
        if len(infos) > limits.max_zip_entries:
            raise too_many
        # zipfile stops reading a member at its declared size (and then fails the CRC), so
        # declared sizes bound the real decompressed size.
        unpacked = sum(info.file_size for info in infos)
        if unpacked > limits.max_decompressed_mb * _MB:
            raise FileTooLargeError(
                name,
                f"this file would unpack to {unpacked / _MB:,.0f} MB, over the limit of "
                f"{limits.max_decompressed_mb:g} MB (it may be a zip bomb)",
            )
        names = {info.filename for info in infos}
        if "[Content_Types].xml" not in names or not any(n.startswith(prefix) for n in names):
            raise _mismatch(name, f".{doc_type}", data, label)
        for info in infos:
            if info.flag_bits & 0x1:
                raise EncryptedFileError(name, f"this file {_LOCKED}")
            if not info.is_dir() and not info.filename.lower().endswith(_MEDIA_SUFFIXES):
                _reject_dtd(archive, info, name)


def _reject_dtd(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> None:
    """Office never writes DTDs; a DOCTYPE or ENTITY declaration means an entity bomb or XXE."""
    tail = b""
    with archive.open(info) as member:
        while chunk := member.read(_MB):
            window = (tail + chunk).lower()
            if any(marker in window for marker in _DTD_MARKERS):
                raise CorruptFileError(
                    name,
                    "this file contains XML declarations (DOCTYPE/ENTITY) that Word and PowerPoint "
                    "never write; it was rejected as unsafe",
                )
            tail = window[-20:]


# --------------------------------------------------------------------------- DOCX

_HEADING_STYLE = re.compile(r"(?:heading|标题)\s*([1-9])", re.IGNORECASE)  # WPS names them "标题 1"


def _heading_path(stack: list[tuple[int, str]], level: int, title: str) -> list[tuple[int, str]]:
    """The heading stack after a heading of `level`: deeper or equal levels are closed."""
    return [entry for entry in stack if entry[0] < level] + [(level, title[:MAX_HEADING_CHARS])]


def _path_text(stack: list[tuple[int, str]]) -> str:
    return " > ".join(title for _, title in stack)


def _docx_heading_level(paragraph) -> int | None:
    try:
        style_name = (paragraph.style.name or "").strip()
    except Exception:  # noqa: BLE001 - a broken style reference is just not a heading
        return None
    match = _HEADING_STYLE.fullmatch(style_name)
    return int(match.group(1)) if match else None


def _docx_table_text(table) -> str:
    rows = []
    for row in table.rows:
        cells: list[str] = []
        previous = None
        for cell in row.cells:
            if cell is previous:  # a horizontally merged cell repeats the same object
                continue
            previous = cell
            cells.append(" ".join(_squash(cell.text).split("\n")))
        if any(cells):
            rows.append(" | ".join(cells))
    return "\n".join(rows)


def _docx_blocks(document) -> Iterator[tuple[int | None, str]]:
    """(heading level or None, text) for each non-empty paragraph and table, in order."""
    from docx.table import Table

    for item in document.iter_inner_content():
        if isinstance(item, Table):
            text = _docx_table_text(item)
            level = None
        else:
            text = _squash(item.text)
            level = _docx_heading_level(item) if text else None
        if text:
            yield level, text


def _parse_docx(data: bytes, name: str, limits: Limits) -> ParsedDocument:
    _check_ooxml(data, name, "docx", limits)
    import docx

    document = docx.Document(io.BytesIO(data))
    budget = _TextBudget(limits.max_text_chars)
    # (heading path, heading title, numbered blocks under it); text before any heading has no path
    groups: list[tuple[str, str, list[tuple[int, str]]]] = [("", "", [])]
    stack: list[tuple[int, str]] = []
    number = 0
    for level, text in _docx_blocks(document):
        number += 1
        text = budget.take(text)
        if level is None:
            groups[-1][2].append((number, text))
        else:
            stack = _heading_path(stack, level, " ".join(text.split()))
            groups.append((_path_text(stack), stack[-1][1], []))
        if budget.exhausted:
            break
    sections: list[Section] = []
    for path, title, body in groups:
        if body and path:
            text = "\n".join([title] + [t for _, t in body])
            sections.append(Section(text=text, locator=path, heading=path))
        elif body:
            sections.extend(_paragraph_sections(body))
    if not sections:
        raise EmptyFileError(name, "this Word document contains no text")
    warnings = [_truncation_warning(limits.max_text_chars)] if budget.exhausted else []
    return ParsedDocument(name=name, doc_type="docx", sections=sections, units=number, warnings=warnings)


def _paragraph_sections(blocks: list[tuple[int, str]]) -> Iterator[Section]:
    """Group numbered paragraphs without a heading into "paragraphs N-M" sections."""
    group: list[tuple[int, str]] = []
    chars = 0
    for block in blocks + [(0, "")]:
        if group and (not block[1] or chars + len(block[1]) > SECTION_MAX_CHARS):
            locator = f"paragraphs {group[0][0]}-{group[-1][0]}"
            yield Section(text="\n".join(t for _, t in group), locator=locator)
            group, chars = [], 0
        if block[1]:
            group.append(block)
            chars += len(block[1]) + 1


# --------------------------------------------------------------------------- PPTX


def _pptx_shape_texts(shapes, skip_id: int | None, depth: int = 0) -> Iterator[str]:
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    if depth > MAX_SHAPE_DEPTH:
        return
    for shape in shapes:
        if shape.shape_id == skip_id:
            continue
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _pptx_shape_texts(shape.shapes, skip_id, depth + 1)
        elif shape.has_text_frame:
            text = _squash(shape.text_frame.text)
            if text:
                yield text
        elif getattr(shape, "has_table", False) and shape.has_table:
            rows = (" | ".join(" ".join(cell.text.split()) for cell in row.cells) for row in shape.table.rows)
            text = _clean("\n".join(row for row in rows if row.strip(" |")))
            if text:
                yield text


def _parse_pptx(data: bytes, name: str, limits: Limits) -> ParsedDocument:
    _check_ooxml(data, name, "pptx", limits)
    import pptx

    presentation = pptx.Presentation(io.BytesIO(data))
    slides = list(presentation.slides)
    if len(slides) > limits.max_pages:
        raise FileTooLargeError(
            name, f"this presentation has {len(slides):,} slides, over the limit of {limits.max_pages:,}"
        )
    if not slides:
        raise EmptyFileError(name, "this presentation has no slides")

    budget = _TextBudget(limits.max_text_chars)
    sections: list[Section] = []
    blank: list[int] = []
    slides_read = 0
    for number, slide in enumerate(slides, 1):
        slides_read = number
        title_shape = slide.shapes.title
        title = ""
        if title_shape is not None and title_shape.has_text_frame:
            title = " ".join(_squash(title_shape.text_frame.text).split())[:MAX_HEADING_CHARS]
        parts = [title] if title else []
        parts.extend(_pptx_shape_texts(slide.shapes, title_shape.shape_id if title_shape is not None else None))
        if slide.has_notes_slide:
            notes_frame = slide.notes_slide.notes_text_frame
            notes = _squash(notes_frame.text) if notes_frame is not None else ""
            if notes:
                parts.append(f"Notes: {notes}")
        if not parts:
            blank.append(number)
            continue
        sections.append(Section(text=budget.take("\n".join(parts)), locator=f"slide {number}", heading=title))
        if budget.exhausted:
            break

    if not sections:
        raise EmptyFileError(name, "this presentation contains no text (its slides may be images only)")
    warnings: list[str] = []
    if blank:
        warnings.append(_numbered("slide", blank, "has no text (images only?)", "have no text (images only?)"))
    if budget.exhausted:
        warnings.append(_truncation_warning(limits.max_text_chars))
    return ParsedDocument(name=name, doc_type="pptx", sections=sections, units=slides_read, warnings=warnings)


# --------------------------------------------------------------------------- Markdown


def _fence(line: str) -> tuple[str, int] | None:
    """("`" or "~", run length) when the line opens or closes a fenced code block."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or stripped[:3] not in ("```", "~~~"):
        return None
    char = stripped[0]
    run = len(stripped) - len(stripped.lstrip(char))
    return char, run


def _atx_heading(line: str) -> tuple[int, str] | None:
    """(level, title) for "## Title ##"-style lines; plain string work, no backtracking."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith("#"):
        return None
    level = len(stripped) - len(stripped.lstrip("#"))
    rest = stripped[level:]
    if level > 6 or (rest and rest[0] not in " \t"):
        return None
    title = rest.strip()
    closed = title.rstrip("#")
    if closed != title and (not closed or closed[-1] in " \t"):
        title = closed.strip()
    return (level, " ".join(title.split())[:MAX_HEADING_CHARS]) if title else None


def _setext_level(line: str) -> int | None:
    stripped = line.strip()
    if len(line) - len(line.lstrip(" ")) > 3 or len(stripped) < 3:
        return None
    if stripped == "=" * len(stripped):
        return 1
    if stripped == "-" * len(stripped):
        return 2
    return None


_NOT_PARAGRAPH = ("    ", "\t", ">", "- ", "* ", "+ ", "|")  # code, quotes, lists, tables


def _markdown_headings(lines: list[str]) -> list[tuple[int, int, int, str]]:
    """(first line, last line, level, title) of each heading, ignoring fenced code blocks.

    Setext headings ("Title" over "====") count only when the title is a one-line paragraph,
    so YAML front matter and horizontal rules are not mistaken for headings.
    """
    headings: list[tuple[int, int, int, str]] = []
    fence: tuple[str, int] | None = None
    plain = [False] * len(lines)  # plain paragraph text, a candidate setext title
    for index, line in enumerate(lines):
        marker = _fence(line)
        if fence is not None:
            if marker and marker[0] == fence[0] and marker[1] >= fence[1] and not line.strip().strip(fence[0]):
                fence = None
            continue
        if marker:
            fence = marker
            continue
        atx = _atx_heading(line)
        if atx:
            headings.append((index, index, *atx))
            continue
        level = _setext_level(line)
        if (
            level
            and index >= 1
            and plain[index - 1]
            and (index == 1 or not lines[index - 2].strip())
        ):
            title = " ".join(lines[index - 1].split())[:MAX_HEADING_CHARS]
            headings.append((index - 1, index, level, title))
            continue
        plain[index] = not level and bool(line.strip()) and not line.startswith(_NOT_PARAGRAPH)
    return headings


def _parse_markdown(data: bytes, name: str, limits: Limits) -> ParsedDocument:
    text, warnings = _read_text(data, name, limits)
    lines = text.split("\n")
    headings = _markdown_headings(lines)
    first_heading = headings[0][0] if headings else len(lines)
    sections = _line_sections(lines[:first_heading])
    stack: list[tuple[int, str]] = []
    for position, (_, last, level, title) in enumerate(headings):
        stack = _heading_path(stack, level, title)
        end = headings[position + 1][0] if position + 1 < len(headings) else len(lines)
        body = "\n".join(lines[last + 1 : end]).strip("\n")
        if body.strip():
            path = _path_text(stack)
            sections.append(Section(text=f"{title}\n{body}", locator=path, heading=path))
    if not sections:  # headings only
        path_lines = [title for _, _, _, title in headings]
        sections = [Section(text="\n".join(path_lines), locator=f"lines 1-{_line_count(lines)}")]
    return ParsedDocument(name=name, doc_type="md", sections=sections, units=_line_count(lines), warnings=warnings)


# --------------------------------------------------------------------------- TXT and PY


def _parse_plain(doc_type: str) -> Callable[[bytes, str, Limits], ParsedDocument]:
    boundary, heading = (_python_boundary, _python_heading) if doc_type == "py" else (_after_blank, lambda t: "")

    def parse(data: bytes, name: str, limits: Limits) -> ParsedDocument:
        text, warnings = _read_text(data, name, limits)
        lines = text.split("\n")
        sections = _line_sections(lines, boundary=boundary, heading=heading)
        units = _line_count(lines)
        return ParsedDocument(name=name, doc_type=doc_type, sections=sections, units=units, warnings=warnings)

    return parse


# --------------------------------------------------------------------------- Jupyter notebooks

_DATA_URI = re.compile(r"data:[\w.+-]+/[\w.+-]+;base64,[A-Za-z0-9+/=\s]+")


def _join_source(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(part for part in value if isinstance(part, str))
    return ""


def _output_text(output: object) -> str:
    """The readable text of one output: streams, text/plain results and error names.

    Images, HTML and other rich outputs are dropped; tracebacks are reduced to "Error: message".
    """
    if not isinstance(output, dict):
        return ""
    kind = output.get("output_type")
    if kind == "stream":
        return _join_source(output.get("text"))
    if kind in ("execute_result", "display_data", "pyout"):
        data = output.get("data")
        plain = data.get("text/plain") if isinstance(data, dict) else output.get("text")
        return _join_source(plain)
    if kind in ("error", "pyerr"):
        return f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
    return ""


def _cell_outputs(outputs: object) -> tuple[str, bool]:
    """All outputs of a cell as one text, each and all cut to size; and whether anything was cut."""
    if not isinstance(outputs, list):
        return "", False
    texts: list[str] = []
    used, cut = 0, False
    for output in outputs:
        raw = _output_text(output)
        text = _squash(raw[: 2 * OUTPUT_MAX_CHARS])  # never squash megabytes we would drop
        if not text:
            continue
        limit = min(OUTPUT_MAX_CHARS, CELL_OUTPUT_MAX_CHARS - used)
        if limit <= 0:
            cut = True
            break
        if len(text) > limit or len(raw) > 2 * OUTPUT_MAX_CHARS:
            text, cut = text[:limit].rstrip() + " … [output truncated]", True
        texts.append(text)
        used += len(text)
    return "\n".join(texts), cut


def _notebook_cells(notebook: object, name: str) -> list:
    not_notebook = CorruptFileError(name, "this file is not a Jupyter notebook (it has no list of cells)")
    if not isinstance(notebook, dict):
        raise not_notebook
    cells = notebook.get("cells")
    if cells is None and isinstance(notebook.get("worksheets"), list):  # nbformat 3
        sheets = notebook["worksheets"]
        cells = sheets[0].get("cells") if sheets and isinstance(sheets[0], dict) else None
    if not isinstance(cells, list):
        raise not_notebook
    return cells


def _parse_notebook(data: bytes, name: str, limits: Limits) -> ParsedDocument:
    text, note = _decode_text(data, name)
    try:
        notebook = json.loads(text)
    except (ValueError, RecursionError):
        raise CorruptFileError(
            name,
            "this notebook is not valid JSON (it may be damaged or incomplete); open it in Jupyter and save it again",
        ) from None
    cells = _notebook_cells(notebook, name)
    warnings = [note] if note else []
    budget = _TextBudget(limits.max_text_chars)
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    truncated: list[int] = []
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type")
        source = _clean(_join_source(cell.get("source", cell.get("input")))).strip()
        if kind == "markdown":
            source = _DATA_URI.sub("[image]", source)
            for _, _, level, title in _markdown_headings(source.split("\n")):
                stack = _heading_path(stack, level, title)
        parts = [source] if source else []
        if kind == "code":
            outputs, cut = _cell_outputs(cell.get("outputs"))
            if outputs:
                parts.append(f"Output:\n{outputs}")
            if cut:
                truncated.append(number)
        if not parts:
            continue
        text = budget.take("\n\n".join(parts))
        sections.append(Section(text=text, locator=f"cell {number}", heading=_path_text(stack)))
        if budget.exhausted:
            break
    if not sections:
        raise EmptyFileError(name, "this notebook has no text in any cell")
    if truncated:
        warnings.append(
            _numbered("cell", truncated, "had a long output, which was cut", "had long outputs, which were cut")
        )
    if budget.exhausted:
        warnings.append(_truncation_warning(limits.max_text_chars))
    return ParsedDocument(name=name, doc_type="ipynb", sections=sections, units=len(cells), warnings=warnings)


_PARSERS: dict[str, Callable[[bytes, str, Limits], ParsedDocument]] = {
    "pdf": _parse_pdf,
    "docx": _parse_docx,
    "pptx": _parse_pptx,
    "md": _parse_markdown,
    "txt": _parse_plain("txt"),
    "py": _parse_plain("py"),
    "ipynb": _parse_notebook,
}
