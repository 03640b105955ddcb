"""Quotable units of a source: whole thoughts that read on their own.

A unit is what an extractive answer may quote: a sentence, with what follows its colon; a
list item, with the lead-in sentence that introduces the list; a table row, written with
its column headers ("HW4 — Released: 2026-10-23; Due date: Friday 2026-11-06"); a
notebook cell's output. Fragments (a header row, a heading, "i.e.") never stand alone.
Pure functions: text in, units out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from courserag.answers.extractive.params import PARAMS
from courserag.answers.extractive.sentences import split_sentences
from courserag.lang.script import joins_without_space

_LIST_ITEM = re.compile(r"^\s*(?:[-*+•·▪‣]|\d{1,3}[.)、]|[（(]?\d{1,2}[）)]|[a-z][.)])\s+")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_HEADING = re.compile(r"^\s*#{1,6}\s+")
# A PDF or text file's numbered heading ("三、正则化", "第 3 章 …", "Section 2 …"): a title, not
# the start of the paragraph below it.
_NUMBERED_HEADING = re.compile(
    r"^\s*(?:[一二三四五六七八九十]{1,3}、|第\s*[一二三四五六七八九十\d]{1,3}\s*[章节讲部分]|(?:Chapter|Section|Part)\s+\d+\b)"
)


def _is_heading(line: str) -> bool:
    if _HEADING.match(line):
        return True
    return (
        bool(_NUMBERED_HEADING.match(line))
        and len(line.strip()) <= PARAMS.max_heading_chars
        and not _SENTENCE_END.search(line.rstrip("：:"))
    )


_MARKUP = re.compile(r"\*\*|__|`")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LEAD_IN_END = re.compile(r"[:：]\s*$")
_SENTENCE_END = re.compile(r"[.!?。！？；;:：]\s*$")
_OUTPUT = "Output:"
_RULE = re.compile(r"^\s*([=_*~-])\1{2,}\s*$")  # "=====" under a title, "-----" between parts
# A line of code: what a quoting answer skips (comments and docstrings are prose).
_CODE = re.compile(
    r"^\s*(?:(?:def|class|import|from|return|if|elif|else|for|while|try|except|with|print|raise|assert|global|@\w+)\b"
    r"|[\w.\[\], ]+\s*(?:[-+*/%]?=)(?!=)|[\w.]+\(.*\)\s*$|[)\]}]\s*$|[\d.,\-]+(,[^,]*){2,}$)"
)
_COMMENT = re.compile(r"^\s*#\s?")
_DOCSTRING = ('"""', "'''")
# Formats whose line breaks are often only wrapping (Markdown source, text, PDF text).
WRAPPED_FORMATS = frozenset({"md", "txt", "pdf", "ipynb", "py", ""})
CODE_FORMATS = frozenset({"py", "ipynb"})


@dataclass(frozen=True)
class Unit:
    """One quotable piece of a source.

    `text` is what the answer shows; `context` is what it is matched on (the text plus the
    lead-in, table headers or heading that give it its meaning).
    """

    text: str
    kind: str  # "sentence" | "item" | "row" | "output"
    position: int
    context: str  # the text with its lead-in or table header
    heading: str = ""  # the section it stands in


# A sentence that opens with one of these leans on the sentence before it ("It is simple
# and cache-friendly…" after "Linear probing: …"): it is quoted together with it.
_LEANS_BACK = re.compile(
    r"^(?:it|its|this|these|they|their|that|those|such|he|she|his|her|它|其|这|该|此|他|她)\b|^(?:它|其|这|该|此|他|她)",
    re.IGNORECASE,
)


def _resolve_pronouns(sentences: list[str]) -> list[str]:
    """Join each sentence that opens with a pronoun to the sentence it refers back to."""
    out: list[str] = []
    for sentence in sentences:
        if out and _LEANS_BACK.match(sentence) and len(out[-1]) < 300:
            out[-1] = f"{out[-1]} {sentence}"
        else:
            out.append(sentence)
    return out


def _clean(line: str) -> str:
    return " ".join(_MARKUP.sub("", line).split())


def _cells(line: str) -> list[str]:
    return [_clean(cell) for cell in line.strip().strip("|").split("|")]


def _is_table_row(line: str) -> bool:
    return line.count("|") >= 2 or (line.count("|") == 1 and " | " in line)


def _looks_like_header(cells: list[str]) -> bool:
    """A header row names its columns: short cells without dates or numbers."""
    return all(cell and len(cell) <= 40 and not re.search(r"\d", cell) for cell in cells)


def _row_text(header: list[str] | None, cells: list[str]) -> str:
    """'HW4 — Topic: Graph algorithms; Released: 2026-10-23' (or the cells joined, no header)."""
    if not header or len(header) != len(cells):
        return " | ".join(c for c in cells if c)
    first, rest = cells[0], [f"{h}: {c}" for h, c in zip(header[1:], cells[1:]) if c and c not in ("—", "-")]
    return f"{first} — " + "; ".join(rest) if rest else first


def unwrap(lines: list[str]) -> list[str]:
    """Join hard-wrapped paragraph lines; list items, table rows, headings and blank lines
    start a new logical line."""
    out: list[str] = []
    for raw in lines:
        line = raw.strip()
        if not line:
            out.append("")
            continue
        previous = out[-1] if out else ""
        starts_block = _LIST_ITEM.match(line) or _is_table_row(line) or _is_heading(line) or _FENCE.match(line)
        if (
            previous
            and not starts_block
            and not _SENTENCE_END.search(previous)
            and not _is_table_row(previous)
            and not _is_heading(previous)
            and not _FENCE.match(previous)
        ):
            glue = "" if joins_without_space(previous, line) else " "
            out[-1] = previous + glue + line
        elif previous and _LIST_ITEM.match(previous) and not starts_block and not _SENTENCE_END.search(previous):
            out[-1] = previous + " " + line  # a wrapped list item
        else:
            out.append(line)
    return out


class _Builder:
    """Walks logical lines once, keeping the state a unit needs (lead-in, table header)."""

    def __init__(self, heading: str):
        self.units: list[Unit] = []
        self.heading = heading
        self.lead_in = ""
        self.header: list[str] | None = None
        self.pending_colon: Unit | None = None  # a sentence ending in ':' waiting for what follows
        self.colon_sentence = ""  # that sentence as written (the lead-in of its list items)
        self._next = 0

    def position(self) -> int:
        self._next += 1
        return self._next

    def add(self, text: str, kind: str, context: str = "") -> None:
        text = text.strip()
        if not text:
            return
        context = " ".join(part for part in (context, text) if part)
        self.units.append(Unit(text, kind, self.position(), context, self.heading))

    def flush_colon(self) -> None:
        if self.pending_colon is not None:
            self.units.append(self.pending_colon)
            self.pending_colon = None

    def extend_colon(self, text: str) -> bool:
        """Append what follows a colon sentence to it; False when there is none waiting."""
        pending = self.pending_colon
        if pending is None:
            return False
        joined = f"{pending.text} {text}"
        self.pending_colon = Unit(joined, pending.kind, pending.position, f"{pending.context} {text}", pending.heading)
        return True

    def table_row(self, line: str) -> None:
        if _TABLE_SEPARATOR.match(line):
            return
        cells = _cells(line)
        if self.header is None and _looks_like_header(cells):
            self.header = cells
            return
        self.flush_colon()
        header_context = " ".join(self.header or [])
        self.add(_row_text(self.header, cells), "row", header_context)

    def list_item(self, line: str) -> None:
        item = _clean(_LIST_ITEM.sub("", line))
        if not item:
            return
        if self.pending_colon is not None and self.pending_colon.text.count(";") < PARAMS.max_items_joined:
            lead = self.pending_colon
            intro = self.colon_sentence
            # The item on its own, with its lead-in; and the lead-in gathering its items.
            self.add(f"{intro} {item}" if len(intro) <= PARAMS.max_lead_in else item, "item", intro)
            self.pending_colon = Unit(
                lead.text + (" " if lead.text.endswith((":", "：")) else "; ") + item,
                lead.kind,
                lead.position,
                f"{lead.context} {item}",
                lead.heading,
            )
            return
        self.add(item, "item", self.lead_in)

    def paragraph(self, line: str) -> None:
        sentences = _resolve_pronouns(split_sentences(_clean(line)))
        for index, sentence in enumerate(sentences):
            if self.extend_colon(sentence) and not _LEAD_IN_END.search(sentence):
                self.flush_colon()
                continue
            self.flush_colon()
            if _LEAD_IN_END.search(sentence):
                self.pending_colon = Unit(sentence, "sentence", self.position(), sentence, self.heading)
                self.colon_sentence = sentence
                self.lead_in = sentence if index == len(sentences) - 1 else ""
            else:
                self.add(sentence, "sentence")


def prose_lines(lines: list[str]) -> list[str]:
    """Code lines become blank (a paragraph ends there), comments and docstrings become prose.

    A notebook output ("Output:" and what follows) is kept as it is."""
    out: list[str] = []
    in_output = in_docstring = False
    for line in lines:
        stripped = line.strip()
        in_output = in_output or stripped == _OUTPUT
        quotes = sum(stripped.count(q) for q in _DOCSTRING)
        if in_output:
            out.append(line)
        elif in_docstring or quotes:
            text = stripped
            for q in _DOCSTRING:
                text = text.split(q, 1)[1] if q in text and not in_docstring else text
                text = text.replace(q, "")
            out.append(text)
            in_docstring = in_docstring != (quotes % 2 == 1)
        elif _COMMENT.match(line):
            text = _COMMENT.sub("", line)
            out.append("" if _RULE.match(text) else text)
        elif _CODE.match(line) or line[:1] in (" ", "\t"):
            out.append("")
        else:
            out.append(line)
    return out


def source_units(text: str, doc_type: str = "", heading: str = "") -> list[Unit]:
    """The quotable units of one source text, in reading order."""
    raw_lines = text.split("\n")
    if heading and raw_lines and raw_lines[0].strip() and raw_lines[0].strip() in heading:
        raw_lines = raw_lines[1:]  # the heading path chunking put on top (it is context, not content)
    if raw_lines and " > " in raw_lines[0]:
        raw_lines = raw_lines[1:]  # a heading path put on top of a notebook cell or a PDF page
    raw_lines = ["" if _RULE.match(line) else line for line in raw_lines]
    if doc_type in CODE_FORMATS:
        raw_lines = prose_lines(raw_lines)
    lines = unwrap(raw_lines) if doc_type in WRAPPED_FORMATS else [line.strip() for line in raw_lines]
    builder = _Builder(heading.split(" > ")[-1] if heading else "")
    in_fence = False
    output: list[str] = []
    for line in lines:
        if _FENCE.match(line):
            in_fence = not in_fence
            builder.flush_colon()
            continue
        if in_fence:
            continue
        if output or line == _OUTPUT:
            output.append(line)  # a notebook cell's output runs to the end of the section
            continue
        if not line:
            builder.flush_colon()
            builder.header = None
            builder.lead_in = ""
            continue
        if _is_heading(line):
            builder.flush_colon()
            builder.header = None
            continue
        if _is_table_row(line):
            builder.table_row(line)
        elif _LIST_ITEM.match(line):
            builder.list_item(line)
        else:
            builder.header = None
            builder.paragraph(line)
    builder.flush_colon()
    body = " ".join(_clean(line) for line in output[1:] if line.strip())
    if body:
        builder.add(f"{_OUTPUT} {body}" if len(body) < 300 else f"{_OUTPUT} {body[:297]}…", "output")
    return sorted(builder.units, key=lambda unit: unit.position)
