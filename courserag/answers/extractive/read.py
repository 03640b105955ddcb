"""The reader's answer: the passages retrieval found are read with the question, and the
best span the reader finds decides what is quoted, or that nothing is.

Each of the top sources is cut into its quotable units (units.py) and read as those units'
text, a line each, so a span the reader picks maps back to the units that hold it. The
answer quotes them, with the span itself said first as the fact when it is a short part of
them (a date, a name, a number). When no source's answerability probability reaches the
threshold, the question is refused and the source read best is offered as a place to look.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from courserag.answers.extractive.answer_shape import words_in
from courserag.answers.extractive.candidate import Candidate, Composition
from courserag.answers.extractive.units import Unit, source_units
from courserag.lang.query import Query
from courserag.reader.reader import Reader
from courserag.retrieval.packing import ContextItem

MAX_FACT_WORDS = 12  # a span this short, and shorter than its unit, is said before the quote


@dataclass(frozen=True)
class ReadSource:
    """One source as the reader reads it: its units, their text a line each, and where each
    unit's text starts and ends in that text."""

    item: ContextItem
    units: tuple[Unit, ...]
    text: str
    offsets: tuple[tuple[int, int], ...]


def read_source(item: ContextItem) -> ReadSource | None:
    chunk = item.hit.chunk
    units = tuple(source_units(item.text, chunk.doc_type, chunk.locator))
    if not units:
        return None
    offsets, at = [], 0
    for unit in units:
        offsets.append((at, at + len(unit.text)))
        at += len(unit.text) + 1
    return ReadSource(item, units, "\n".join(u.text for u in units), tuple(offsets))


def covered(offsets: Sequence[tuple[int, int]], start: int, end: int) -> list[int]:
    """The units whose text overlaps [start, end); the unit at `start` when the span is empty."""
    hit = [i for i, (s, e) in enumerate(offsets) if s < end and start < e]
    if hit:
        return hit
    return [next((i for i, (s, e) in enumerate(offsets) if s <= start <= e), 0)]


def whole_list(units: Sequence[Unit], chosen: list[int]) -> list[int]:
    """The chosen units and, around them, the run of list items (or table rows) they stand in:
    a list asked for is quoted whole."""
    kinds = {units[i].kind for i in chosen} & {"item", "row"}
    if not kinds:
        return chosen
    first, last = min(chosen), max(chosen)
    while first > 0 and units[first - 1].kind in kinds:
        first -= 1
    while last + 1 < len(units) and units[last + 1].kind in kinds:
        last += 1
    return list(range(first, last + 1))


def compose_read(query: Query, items: Sequence[ContextItem], reader: Reader, threshold: float) -> Composition:
    """The units holding the reader's best span over `items`, or a refusal."""
    sources = [s for s in (read_source(item) for item in items) if s is not None]
    if not sources:
        return Composition((), True, "no_units")
    readings = reader.read(query.text, [s.text for s in sources])
    best = max(readings, key=lambda r: r.score)
    chance = max(r.answerable for r in readings)
    source = sources[best.passage]
    features = (("reader_answerable", chance), ("reader_score", best.score))
    if chance < threshold:
        return Composition((), True, "reader", source.item.n, features=features)
    chosen = covered(source.offsets, best.start, best.end)
    if query.ask.wants_list:
        chosen = whole_list(source.units, chosen)
    units = tuple(
        Candidate(source.item.n, source.units[i], frozenset(), 0.0, 0.0, best.score, p=chance) for i in chosen
    )
    span = best.text(source.text)
    quoted = " ".join(u.unit.text for u in units)
    fact = span if span and words_in(span) <= MAX_FACT_WORDS and words_in(span) < words_in(quoted) else None
    return Composition(
        units,
        False,
        features=features,
        fact=fact,
        fact_n=source.item.n if fact else None,
        wants_list=query.ask.wants_list,
    )
