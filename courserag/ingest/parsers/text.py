"""Text helpers every format shares, and the two plain-text formats (.txt and .py).

Decoding (BOMs, UTF-8, GB18030, then a guess, with a warning when we guessed), cleaning
(Unix newlines, no ANSI colours or control characters), the character budget, the
numbered-warning wording, heading paths, and "lines A-B" sections cut at sensible places.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from typing import Callable, Iterator

from courserag.config.settings import Limits
from courserag.errors import CorruptFileError, EmptyFileError
from courserag.i18n.messages import Notice
from courserag.ingest.parsers.cleanup import fix_ligatures
from courserag.records import Section

MB = 1024 * 1024
MAX_HEADING_CHARS = 200  # a heading longer than this is cut in the heading path
SECTION_MAX_CHARS = 6000  # line-based sections are cut here even inside a 40-60 line block
SECTION_MIN_LINES, SECTION_MAX_LINES = 40, 60
BINARY_SHARE = 0.05  # more control/undecodable characters than this and it is not text
LEGACY_ASCII_SHARE = 0.85  # mostly-ASCII non-UTF-8 text is read as Windows-1252


@dataclass(frozen=True)
class Extracted:
    """What one format's parser yields; the registry adds the name, type and unit."""

    sections: list[Section]
    units: int  # how many of the format's unit were read (pages, slides, lines…)
    warnings: list[Notice] = field(default_factory=list)


# --------------------------------------------------------------------------- cleaning

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # after newlines are normalised
_NOT_TEXT = re.compile("[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f-\x9f\ufffd]")


def clean(text: str) -> str:
    """Unix newlines, no ANSI colour codes, no control characters (tabs and newlines stay),
    no ligature characters ("ﬁ" -> "fi", see cleanup.py)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    return fix_ligatures(_CONTROL.sub("", text))


def squash(text: str) -> str:
    """Trim each line and drop empty ones: for short texts from paragraphs, cells and shapes."""
    return "\n".join(line.strip() for line in clean(text).split("\n") if line.strip())


# --------------------------------------------------------------------------- warnings and budget


def _ranges(numbers: list[int]) -> str:
    """[1, 2, 3, 7] -> "1-3, 7" (numbers ascending, at least one)."""
    spans: list[list[int]] = []
    for number in numbers:
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans)


def numbered(one_code: str, many_code: str, numbers: list[int]) -> Notice:
    """ "page 3 has…" ({number}) or "pages 2, 4-5 have…" ({numbers}), by how many there are."""
    if len(numbers) == 1:
        return Notice(one_code, {"number": numbers[0]})
    return Notice(many_code, {"numbers": _ranges(numbers)})


def truncation_warning(limit: int) -> Notice:
    return Notice("text_truncated", {"limit": limit})


class TextBudget:
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


# --------------------------------------------------------------------------- decoding


def decode_text(data: bytes, name: str) -> tuple[str, Notice | None]:
    """Decode a text file: BOMs, UTF-8, GB18030/GBK, then detection; reject binary data.

    Returns the text and, when the encoding had to be guessed, a warning for the student.
    """
    text: str | None = None
    note: Notice | None = None
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
            raise CorruptFileError(name, "not_text")
        text, note = _decode_without_bom(data)
    if text is None or _looks_binary(text):
        raise CorruptFileError(name, "not_text")
    return text, note


def _decode_without_bom(data: bytes) -> tuple[str | None, Notice | None]:
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
        return lenient, Notice("bytes_replaced")
    ascii_share = sum(1 for b in data[:65536] if b < 0x80) / min(len(data), 65536)
    if ascii_share >= LEGACY_ASCII_SHARE:
        # Mostly-ASCII files with some accents or "smart quotes" are nearly always Windows
        # Western text; charset detection guesses badly on them (it picks Mac Central European).
        return data.decode("cp1252", errors="replace"), Notice("read_as_windows_1252")
    try:
        import charset_normalizer
    except ImportError:  # pragma: no cover - it ships with requests, which Gradio needs
        return None, None
    best = charset_normalizer.from_bytes(data).best()
    if best is None or not best.encoding:
        return None, None
    return str(best), Notice("read_as_guessed", {"encoding": best.encoding})


def _looks_binary(text: str) -> bool:
    if not text:
        return False
    sample = text if len(text) <= 4 * MB else text[: 2 * MB] + text[-2 * MB :]
    return len(_NOT_TEXT.findall(sample)) > BINARY_SHARE * len(sample)


def read_text(data: bytes, name: str, limits: Limits) -> tuple[str, list[Notice]]:
    """Decoded, cleaned text within the character budget, plus warnings; never empty."""
    text, note = decode_text(data, name)
    text = clean(text)
    warnings = [note] if note else []
    if len(text) > limits.max_text_chars:
        text = text[: limits.max_text_chars]
        warnings.append(truncation_warning(limits.max_text_chars))
    if not text.strip():
        raise EmptyFileError(name, "no_text")
    return text, warnings


def line_count(lines: list[str]) -> int:
    return len(lines) - (1 if lines and lines[-1] == "" else 0)


# --------------------------------------------------------------------------- heading paths


def heading_path(stack: list[tuple[int, str]], level: int, title: str) -> list[tuple[int, str]]:
    """The heading stack after a heading of `level`: deeper or equal levels are closed."""
    return [entry for entry in stack if entry[0] < level] + [(level, title[:MAX_HEADING_CHARS])]


def path_text(stack: list[tuple[int, str]]) -> str:
    return " > ".join(title for _, title in stack)


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


def line_sections(
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


# --------------------------------------------------------------------------- .txt and .py


def parse_txt(data: bytes, name: str, limits: Limits) -> Extracted:
    """Plain text: "lines A-B" sections that prefer to end at a blank line."""
    text, warnings = read_text(data, name, limits)
    lines = text.split("\n")
    return Extracted(line_sections(lines), line_count(lines), warnings)


def parse_py(data: bytes, name: str, limits: Limits) -> Extracted:
    """Python source: "lines A-B" sections that prefer to start at a def or class, named after it."""
    text, warnings = read_text(data, name, limits)
    lines = text.split("\n")
    sections = line_sections(lines, boundary=_python_boundary, heading=_python_heading)
    return Extracted(sections, line_count(lines), warnings)
