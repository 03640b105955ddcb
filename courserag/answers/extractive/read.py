"""The reader's answer: the passages retrieval found are read with the question, and the
spans the reader finds decide what is quoted, or that nothing is.

Each of the top sources is cut into its quotable units (units.py) and read as those units'
text, a line each, so a span the reader picks maps back to the units that hold it. The
answer quotes the units of the best span, with the span itself said first as the fact when
it is a short part of them (a date, a name, a number), then those of the next best spans
that score nearly as well, while the quotes are short (`ReadParams`, fitted with the
weights by scripts/calibrate_reader.py): a second reading costs the learner a line, a wrong single
one costs the answer. A dated statement of a change that the reader reads as an answer too,
newer than the best span's source, is quoted first (`newer_lead`). When the calibrated
confidence (read_calibration.py) is below the threshold, the question is refused and the
source read best is offered as a place to look.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

import numpy as np

from courserag.answers.extractive.answer_shape import words_in
from courserag.answers.extractive.candidate import Candidate, Composition
from courserag.answers.extractive.read_calibration import ReaderCalibration, ReadParams
from courserag.answers.extractive.recency import issued, states_change
from courserag.answers.extractive.units import Unit, source_units
from courserag.courses.codes import course_codes
from courserag.embedders.groups import UnitMatches, meaning_of
from courserag.lang.query import Query
from courserag.lang.script import is_chinese, script_of
from courserag.reader.reader import Reader, Reading
from courserag.retrieval.packing import ContextItem

MAX_FACT_WORDS = 12  # a span this short, and shorter than its unit, is said before the quote
Date = tuple[int, int, int]  # a notice's (year, month, day): recency.issued
Similarity = Callable[[list[str]], UnitMatches | np.ndarray]  # units' texts -> E5's cosines with the question


@dataclass(frozen=True)
class ReadSource:
    """One source as the reader reads it: its units, their text a line each, and where each
    unit's text starts and ends in that text."""

    item: ContextItem
    units: tuple[Unit, ...]
    text: str
    offsets: tuple[tuple[int, int], ...]


def naming(items: Sequence[ContextItem], codes: Sequence[str]) -> list[ContextItem]:
    """The items that name every one of `codes` (course codes no listed course has, which the
    materials may still mention: a prerequisite): only they can answer a question about those
    codes, never a passage about this course's own. All of `items` when there are no codes."""
    wanted = set(codes)
    return [item for item in items if wanted <= set(course_codes(f"{item.hit.chunk.locator} {item.text}"))]


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


def quoted_units(
    readings: Sequence[Reading], sources: Sequence[ReadSource], wants_list: bool, params: ReadParams
) -> list[tuple[int, int]]:
    """(source, unit) places to quote, in answer order: the units of the best reading (its
    whole list when a list is asked for), then those of each next reading within the margin
    that adds a unit, while the spans and the words allow. `readings` come best first."""
    best = readings[0]
    first = covered(sources[best.passage].offsets, best.start, best.end)
    if wants_list:
        first = whole_list(sources[best.passage].units, first)
    places = [(best.passage, i) for i in first]
    words = sum(words_in(sources[p].units[i].text) for p, i in places)
    spans = 1
    for reading in readings[1:]:
        if spans >= params.spans or words >= params.words or reading.score < best.score - params.margin:
            break
        new = [
            (reading.passage, i)
            for i in covered(sources[reading.passage].offsets, reading.start, reading.end)
            if (reading.passage, i) not in places
        ]
        if new:
            spans += 1
            places += new
            words += sum(words_in(sources[p].units[i].text) for p, i in new)
    return places


def _statement(reading: Reading, sources: Sequence[ReadSource]) -> tuple[str, str]:
    """(the source's whole text, the text of the units holding the reading's span)."""
    source = sources[reading.passage]
    units = covered(source.offsets, reading.start, reading.end)
    return source.item.text, " ".join(source.units[i].text for i in units)


def newer_lead(
    readings: Sequence[Reading], sources: Sequence[ReadSource], margin: float
) -> tuple[list[Reading], Date | None]:
    """The readings with a dated statement of a change first (recency.py), and its date, when
    the reader reads it as an answer too (its span within `margin` of the best) and it is newer
    than what the best span's source says: a later notice moving the exam outranks the
    syllabus, while a notice about something else (a review session) is not read as the exam's
    answer, so it does not. Otherwise the readings as they are, and None."""
    best = readings[0]
    best_date = issued(*_statement(best, sources))
    rivals = []
    for reading in readings[1:]:
        if reading.score < best.score - margin:
            break
        text, quote = _statement(reading, sources)
        date = issued(text, quote) if states_change(quote) else None
        if date is not None and (best_date is None or date > best_date):
            rivals.append((date, reading.score, reading))
    if not rivals:
        return list(readings), None
    date, _, lead = max(rivals, key=lambda rival: rival[:2])
    return [lead, *(r for r in readings if r is not lead)], date


def first_unit(reading: Reading, sources: Sequence[ReadSource]) -> int:
    """The unit of its source the reading's span starts in."""
    return covered(sources[reading.passage].offsets, reading.start, reading.end)[0]


def with_similarity(
    readings: Sequence[Reading], sources: Sequence[ReadSource], meanings: Sequence[Sequence[float]], weight: float
) -> list[Reading]:
    """The readings scored again, best first: each one's score plus `weight` times E5's
    cosine of the question with the unit its span starts in (`meanings[source][unit]`)."""
    rescored = [replace(r, score=r.score + weight * meanings[r.passage][first_unit(r, sources)]) for r in readings]
    return sorted(rescored, key=lambda r: -r.score)


def across_languages(question: str, source: ReadSource) -> bool:
    """Whether the question is written in another script than the source it is read in."""
    return script_of(question) != script_of(source.text)


@dataclass(frozen=True)
class ReadingAnswerer:
    """The reader's answer as one component: built once with the trained reader and the
    calibration fitted with its weights, called with a question and its evidence."""

    reader: Reader
    calibration: ReaderCalibration

    def compose(
        self,
        query: Query,
        items: Sequence[ContextItem],
        similarity: Similarity | None = None,
        required: Sequence[str] = (),
    ) -> Composition:
        """The units holding the reader's best spans over `items`, or a refusal. `similarity`
        gives E5's cosines of the question with a source's units, asked for when the fitted
        quotes or refusal weigh them; `required`, the course codes of no listed course the
        question names: only the items naming them are read, and none is a refusal."""
        named = naming(items, required)
        if required and not named:
            return Composition((), True, "missing_code", items[0].n if items else None)
        sources = [s for s in (read_source(item) for item in named) if s is not None]
        readings = self.reader.read(query.text, [s.text for s in sources]) if sources else []
        meanings = None
        if similarity is not None and self.calibration.weighs_cosines and readings:
            meanings = [meaning_of(similarity([u.text for u in s.units])) for s in sources]
        return compose_readings(query.text, sources, readings, query.ask.wants_list, self.calibration, meanings)


def compose_readings(
    question: str,
    sources: Sequence[ReadSource],
    readings: Sequence[Reading],
    wants_list: bool,
    calibration: ReaderCalibration,
    meanings: Sequence[Sequence[float]] | None = None,
) -> Composition:
    """What the reader's readings of `sources` (best first) answer, or a refusal. Given
    `meanings` (E5's cosine of the question with each source's units), the spans are ranked
    by the reader's score plus the fitted share of it (`with_similarity`)."""
    if not readings:
        return Composition((), True, "no_units")
    chance = max(r.answerable for r in readings)
    if meanings is not None and calibration.quotes.similarity:
        readings = with_similarity(readings, sources, meanings, calibration.quotes.similarity)
    readings, newer = newer_lead(readings, sources, calibration.quotes.margin)
    best = readings[0]
    source = sources[best.passage]
    across = across_languages(question, source)
    chinese = is_chinese(question)
    cosine = None if meanings is None else float(meanings[best.passage][first_unit(best, sources)])
    confidence = calibration.confidence(chance, across, cosine, chinese)
    features = (
        ("reader_answerable", chance),
        ("reader_across", float(across)),
        ("reader_chinese", float(chinese)),
        ("reader_cosine", cosine),
        ("reader_confidence", confidence),
        ("reader_score", best.score),
    )
    if confidence < calibration.threshold:
        return Composition((), True, "reader", source.item.n, features=features)
    places = quoted_units(readings, sources, wants_list, calibration.quotes)
    units = tuple(
        Candidate(sources[p].item.n, sources[p].units[i], frozenset(), 0.0, 0.0, best.score, p=confidence)
        for p, i in places
    )
    span = best.text(source.text)
    quoted = " ".join(c.unit.text for c in units if c.n == source.item.n)
    fact = span if span and words_in(span) <= MAX_FACT_WORDS and words_in(span) < words_in(quoted) else None
    return Composition(
        units,
        False,
        newer=newer,
        features=features,
        fact=fact,
        fact_n=source.item.n if fact else None,
        wants_list=wants_list,
    )
