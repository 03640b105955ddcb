"""Structure-aware chunking, sized in the embedding model's tokens.

A parser already cut the file at its structure (pages, slides, headings, cells); here each
section is packed into chunks of at most `target` tokens without crossing its boundary, so
every chunk keeps one locator that a citation can point at. Sizes are counted with the
model's own tokenizer (`count`), so a chunk fits the embedder's window and the answerer's
per-chunk budget whatever the language: an English word is about 1.3 tokens, a Chinese
character about one, and a 1,400-character Chinese chunk would have been cut to a third.
Consecutive chunks of one section share about `overlap` tokens of whole sentences, so an
answer that straddles a cut is still found whole in one of them; a table cut across chunks
repeats its header row, so every row still says what its columns mean. A section located by
line range ("lines 41-100") gives each of its chunks the range of the lines that chunk holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable

from courserag.lang.abbreviations import ends_abbreviation
from courserag.lang.script import IDEOGRAPH
from courserag.records import Chunk, Origin, Section

CountTokens = Callable[[str], int]

# A sentence ends at . ! ? followed by space, or right after the Chinese 。！？； (which
# need no space), keeping the punctuation with its sentence.
_SENTENCE_END = re.compile(r"(?<=[。！？；!?])|(?<=[.;:])\s+(?=\S)")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}")
_LINE_RANGE = re.compile(r"^lines (\d+)-(\d+)$")


def approximate_tokens(text: str) -> int:
    """A tokenizer-free estimate (CJK characters, plus 1.3 per other word), for tests and
    for callers without a model."""
    cjk = len(IDEOGRAPH.findall(text))
    words = len(IDEOGRAPH.sub(" ", text).split())
    return cjk + (words * 13 + 9) // 10


@dataclass(frozen=True)
class TextPiece:
    """A chunk's text and locator before it gets an id and an origin."""

    text: str
    locator: str


@dataclass(frozen=True)
class _Unit:
    """A paragraph, sentence or table row, and the table header it belongs under (if any).

    `sep` is what goes before it in a chunk: a blank line before a paragraph (so that the
    paragraph boundary survives chunking), a line break before a table row, a space before
    the next sentence of a paragraph that had to be cut. `start` is where it begins in the
    chunked text."""

    text: str
    header: str = ""
    sep: str = "\n\n"
    start: int = 0


def split_sentences(text: str) -> list[str]:
    """Split into sentences at Latin and Chinese sentence punctuation, never after an
    abbreviation ("Dr.", "e.g.": lang/abbreviations.yaml); never drops text."""
    parts = []
    start = 0
    for end in _SENTENCE_END.finditer(text):
        if not ends_abbreviation(text, end.start() - 1):
            parts.append(text[start : end.start()].strip())
            start = end.end()
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def _hard_split(text: str, count: CountTokens, target: int) -> list[str]:
    """Last resort for a run with no boundary (a 10 MB single line): cut by characters in
    proportion to its tokens, at a space when there is one nearby."""
    tokens = max(count(text), 1)
    size = max(1, len(text) * target // tokens)
    pieces = []
    position = 0
    while position < len(text):
        end = min(position + size, len(text))
        if end < len(text):
            space = text.rfind(" ", position + size // 2, end)
            end = space + 1 if space != -1 else end
        pieces.append(text[position:end].strip())
        position = end
    return [p for p in pieces if p]


def _table_units(paragraph: str) -> list[_Unit] | None:
    """Rows of a Markdown table, each carrying the header (first row and separator)."""
    lines = paragraph.split("\n")
    if len(lines) < 3 or not all(_TABLE_ROW.match(line) for line in lines) or not _TABLE_SEPARATOR.match(lines[1]):
        return None
    header = "\n".join(lines[:2])
    return [_Unit(line, header, "\n") for line in lines[2:]]


def _units(text: str, count: CountTokens, target: int) -> list[_Unit]:
    """Paragraphs, with any paragraph over `target` tokens cut into table rows or sentences
    (and those still over it cut by characters)."""
    units: list[_Unit] = []
    for paragraph in _PARAGRAPH_BREAK.split(text):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        if count(paragraph) <= target:
            units.append(_Unit(paragraph))
            continue
        rows = _table_units(paragraph)
        if rows is not None:
            units.extend(rows)
            continue
        pieces = [
            part
            for sentence in split_sentences(paragraph)
            for part in (_hard_split(sentence, count, target) if count(sentence) > target else [sentence])
        ]
        units.extend(_Unit(part, sep="\n\n" if i == 0 else " ") for i, part in enumerate(pieces))
    return units


def _located(units: list[_Unit], text: str) -> list[_Unit]:
    """The units with their offsets in `text`. Units are in order and only whitespace lies
    between two of them, so each is the first match at or after the end of the previous.
    A sentence cut from its paragraph keeps the break that was there (a line break in a text
    file's lines, nothing between two Chinese sentences) rather than a space."""
    out: list[_Unit] = []
    position = 0
    for unit in units:
        found = text.find(unit.text, position)
        start = found if found >= 0 else position
        sep = unit.sep
        if found >= 0 and out and sep == " ":
            gap = text[position:found]
            sep = "\n" if "\n" in gap else gap[:1]
        out.append(_Unit(unit.text, unit.header, sep, start))
        position = start + len(unit.text) if found >= 0 else position
    return out


def _render(units: list[_Unit]) -> str:
    """A chunk's text; the rows of a table cut from its header get the header again."""
    out: list[str] = []
    previous = ""
    for unit in units:
        if unit.header and unit.header != previous:
            out.append(("\n\n" if out else "") + unit.header)
            out.append("\n" + unit.text)
        else:
            out.append((unit.sep if out else "") + unit.text)
        previous = unit.header
    return "".join(out)


def _cost(units: list[_Unit], size: Callable[[str], int]) -> int:
    """Tokens of `_render(units)`, from the units' own counts (one line break each)."""
    total, previous = 0, ""
    for unit in units:
        if unit.header and unit.header != previous:
            total += size(unit.header) + 1
        total += size(unit.text) + 1
        previous = unit.header
    return total


def chunk_spans(
    text: str, count: CountTokens = approximate_tokens, target: int = 320, overlap: int = 40
) -> list[tuple[str, int, int]]:
    """(chunk, start, end) for each chunk: `chunk_text`'s chunks and where in `text` the
    first of their units begins and the last ends."""
    if target <= 0:
        raise ValueError(f"target must be > 0, but got {target}")
    chunks: list[tuple[str, int, int]] = []
    current: list[_Unit] = []
    counted: dict[str, int] = {}

    def size(piece: str) -> int:  # each unit is counted once, however often it is packed
        if piece not in counted:
            counted[piece] = count(piece)
        return counted[piece]

    def emit(units: list[_Unit]) -> None:
        chunks.append((_render(units), units[0].start, units[-1].start + len(units[-1].text)))

    for unit in _located(_units(text, count, target), text):
        if current and _cost(current + [unit], size) > target:
            emit(current)
            # The next chunk starts with the last whole units that fit in `overlap` tokens,
            # unless they leave no room for the unit that did not fit.
            tail: list[_Unit] = []
            for previous in reversed(current):
                if _cost([previous] + tail, size) > overlap:
                    break
                tail.insert(0, previous)
            current = tail if overlap and _cost(tail + [unit], size) <= target else []
        current.append(unit)
    if current:
        emit(current)
    return chunks


def chunk_text(text: str, count: CountTokens = approximate_tokens, target: int = 320, overlap: int = 40) -> list[str]:
    """Pack the text's paragraphs/sentences greedily into chunks of at most ~target tokens."""
    return [chunk for chunk, _, _ in chunk_spans(text, count, target, overlap)]


def chunk_locator(locator: str, body: str, start: int, end: int) -> str:
    """A chunk's own locator: for a "lines A-B" section, the lines from `start` to `end` of
    its `body` (which begins at line A); any other locator is the section's."""
    match = _LINE_RANGE.match(locator)
    if not match:
        return locator
    first = int(match.group(1))
    return f"lines {first + body.count(chr(10), 0, start)}-{first + body.count(chr(10), 0, max(start, end - 1))}"


def chunk_sections(
    sections: Iterable[Section], count: CountTokens = approximate_tokens, target: int = 320, overlap: int = 40
) -> list[TextPiece]:
    """Chunk every section on its own; a heading path is kept at the top of each chunk so
    the chunk reads (and embeds) in context. `target` includes the heading."""
    pieces: list[TextPiece] = []
    for section in sections:
        heading = section.heading.strip()
        body = section.text.strip()
        if not body:
            continue
        prefix = f"{heading}\n" if heading and not body.startswith(heading.split(" > ")[-1]) else ""
        room = max(target // 2, target - count(prefix))
        for text, start, end in chunk_spans(body, count, room, overlap):
            pieces.append(TextPiece(text=prefix + text, locator=chunk_locator(section.locator, body, start, end)))
    return pieces


def make_chunks(
    pieces: Iterable[TextPiece],
    source: str,
    origin: Origin,
    course_id: str | None = None,
    doc_type: str = "",
    file_hash: str = "",
) -> list[Chunk]:
    """Give each piece its stable id and its provenance; drops exact duplicates."""
    seen: set[str] = set()
    chunks: list[Chunk] = []
    for piece in pieces:
        chunk = Chunk.make(piece.text, source, piece.locator, origin, course_id, doc_type, file_hash)
        if chunk.id not in seen:
            seen.add(chunk.id)
            chunks.append(chunk)
    return chunks
