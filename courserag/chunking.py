"""Structure-aware chunking: sections first, then paragraphs, then sentences, then characters.

A parser already cut the file at its structure (pages, slides, headings, cells); here each
section is packed into chunks of about `target` characters without crossing its boundary,
so every chunk keeps one locator that a citation can point at. Consecutive chunks of one
section share `overlap` characters of whole sentences, so an answer that straddles a cut is
still found whole in one of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from courserag.records import Chunk, Origin, Section

# A sentence ends at . ! ? followed by space, or right after the Chinese 。！？； (which
# need no space), keeping the punctuation with its sentence.
_SENTENCE_END = re.compile(r"(?<=[。！？；!?])|(?<=[.;:])\s+(?=\S)")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class TextPiece:
    """A chunk's text and locator before it gets an id and an origin."""

    text: str
    locator: str


def split_sentences(text: str) -> list[str]:
    """Split into sentences at Latin and Chinese sentence punctuation; never drops text."""
    parts = [p.strip() for p in _SENTENCE_END.split(text)]
    return [p for p in parts if p]


def _hard_split(text: str, size: int) -> list[str]:
    """Last resort for a run with no sentence boundary (a 10 MB single line, say)."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def _units(text: str, target: int) -> list[str]:
    """Paragraphs, with any paragraph longer than target cut into sentences (and those
    longer than target cut by characters)."""
    units: list[str] = []
    for paragraph in _PARAGRAPH_BREAK.split(text):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        if len(paragraph) <= target:
            units.append(paragraph)
            continue
        for sentence in split_sentences(paragraph):
            units.extend(_hard_split(sentence, target) if len(sentence) > target else [sentence])
    return units


def _tail(units: list[str], overlap: int) -> list[str]:
    """The last whole units of a chunk that fit in `overlap` characters."""
    kept: list[str] = []
    size = 0
    for unit in reversed(units):
        if size + len(unit) > overlap:
            break
        kept.insert(0, unit)
        size += len(unit) + 1
    return kept


def chunk_text(text: str, target: int = 1400, overlap: int = 150) -> list[str]:
    """Pack the text's paragraphs/sentences greedily into chunks of at most ~target chars."""
    if target <= 0:
        raise ValueError(f"target must be > 0, but got {target}")
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for unit in _units(text, target):
        if current and size + len(unit) > target:
            chunks.append("\n".join(current))
            current = _tail(current, overlap) if overlap else []
            size = sum(len(u) + 1 for u in current)
            # An overlap that leaves no room for the next unit would only repeat itself.
            if size + len(unit) > target:
                current, size = [], 0
        current.append(unit)
        size += len(unit) + 1
    if current:
        chunks.append("\n".join(current))
    return chunks


def chunk_sections(sections: Iterable[Section], target: int = 1400, overlap: int = 150) -> list[TextPiece]:
    """Chunk every section on its own; a heading path is kept at the top of each chunk so
    the chunk reads (and embeds) in context."""
    pieces: list[TextPiece] = []
    for section in sections:
        heading = section.heading.strip()
        body = section.text.strip()
        if not body:
            continue
        prefix = f"{heading}\n" if heading and not body.startswith(heading.split(" > ")[-1]) else ""
        for text in chunk_text(body, max(200, target - len(prefix)), overlap):
            pieces.append(TextPiece(text=prefix + text, locator=section.locator))
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
