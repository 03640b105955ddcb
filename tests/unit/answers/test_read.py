"""The reader's answer maps its span back to the units that hold it (answers/extractive/read.py)."""

from __future__ import annotations

import pytest

from courserag.answers.extractive.read import (
    compose_readings,
    covered,
    naming,
    newer_lead,
    quoted_units,
    read_source,
    whole_list,
    with_similarity,
)
from courserag.answers.extractive.read_calibration import ReaderCalibration, ReadParams
from courserag.answers.extractive.units import Unit
from courserag.reader.reader import Reading
from courserag.records import Chunk, ScoredChunk
from courserag.retrieval.packing import ContextItem


@pytest.mark.parametrize(
    ("start", "end", "units"),
    [
        (0, 5, [0]),  # inside the first unit
        (12, 14, [1]),  # inside the second
        (8, 13, [0, 1]),  # across the line between them
        (10, 10, [1]),  # empty, at the start of the second
        (9, 9, [0]),  # empty, at the end of the first
        (30, 40, [2]),  # reaching past the text's end
    ],
)
def test_a_span_is_quoted_by_the_units_it_overlaps(start, end, units):
    offsets = [(0, 9), (10, 20), (21, 35)]
    assert covered(offsets, start, end) == units


def item(text: str, doc_type: str = "md") -> ContextItem:
    chunk = Chunk.make(text, "notes.md", "lines 1-3", "course", "c1", doc_type)
    return ContextItem(1, ScoredChunk(chunk), text, 10)


def test_a_source_is_read_as_its_units_a_line_each_with_their_places():
    source = read_source(item("The final exam is on 12 December.\nIt lasts three hours. Bring a pen."))
    assert [u.text for u in source.units] == [
        "The final exam is on 12 December.",
        "It lasts three hours.",
        "Bring a pen.",
    ]
    assert [source.text[s:e] for s, e in source.offsets] == [u.text for u in source.units]


def test_a_source_with_nothing_to_quote_is_not_read():
    assert read_source(item("   \n\n")) is None


def units_of(kinds: str) -> list[Unit]:
    names = {"s": "sentence", "i": "item", "r": "row"}
    return [Unit(f"u{n}", names[k], n, f"u{n}") for n, k in enumerate(kinds)]


@pytest.mark.parametrize(
    ("kinds", "chosen", "quoted"),
    [
        ("siiis", [2], [1, 2, 3]),  # an item: its whole list
        ("siiis", [0], [0]),  # a sentence: itself
        ("rrrsii", [1], [0, 1, 2]),  # a row: its whole table, not the list after it
        ("iisii", [3, 4], [3, 4]),  # the list the span is in, not the one before the sentence
    ],
)
def test_a_list_asked_for_is_quoted_whole(kinds, chosen, quoted):
    assert whole_list(units_of(kinds), chosen) == quoted


def sources_of(*texts: str):
    return [read_source(item(text)) for text in texts]


def reading(passage: int, source, unit: int, score: float) -> Reading:
    """A reading whose span lies inside one unit of `source`."""
    start, end = source.offsets[unit]
    return Reading(passage, start, end, score, 0.9)


SOURCES = (
    "The final exam is on 12 December.\nIt lasts three hours.\nBring a pen.",
    "The midterm is on 20 October.\nIt is worth 30%.",
)


@pytest.mark.parametrize(
    ("spans", "params", "places"),
    [
        # the best span alone when no other comes within the margin
        ([(0, 0, 9.0), (1, 0, 2.0)], ReadParams(spans=3, margin=3.0, words=60), [(0, 0)]),
        # a near second span adds its unit, from the same source or another
        ([(0, 0, 9.0), (1, 0, 7.5)], ReadParams(spans=3, margin=3.0, words=60), [(0, 0), (1, 0)]),
        ([(0, 0, 9.0), (0, 2, 8.0)], ReadParams(spans=3, margin=3.0, words=60), [(0, 0), (0, 2)]),
        # a span in a unit already quoted (an overlapping window) does not count as one
        ([(0, 0, 9.0), (0, 0, 8.9), (1, 1, 8.0)], ReadParams(spans=2, margin=3.0, words=60), [(0, 0), (1, 1)]),
        # at most `spans` spans
        ([(0, 0, 9.0), (0, 1, 8.5), (1, 0, 8.0)], ReadParams(spans=2, margin=3.0, words=60), [(0, 0), (0, 1)]),
        # none added once the quotes hold `words` words
        ([(0, 0, 9.0), (1, 0, 8.5)], ReadParams(spans=3, margin=3.0, words=5), [(0, 0)]),
    ],
)
def test_near_runner_up_spans_are_quoted_after_the_best(spans, params, places):
    sources = sources_of(*SOURCES)
    readings = [reading(p, sources[p], unit, score) for p, unit, score in spans]
    assert quoted_units(readings, sources, wants_list=False, params=params) == places


def test_a_list_asked_for_is_quoted_whole_before_any_runner_up():
    sources = sources_of("Bring:\n- a pen\n- a ruler\n- a calculator", "The exam hall is B2.")
    items = [i for i, u in enumerate(sources[0].units) if u.kind == "item"]
    readings = [reading(0, sources[0], items[1], 9.0), reading(1, sources[1], 0, 8.5)]
    places = quoted_units(readings, sources, wants_list=True, params=ReadParams(spans=1))
    assert places == [(0, i) for i in items]


SYLLABUS = "Final exam: Tuesday 2026-12-15, 09:00-12:00, in the sports hall."
MOVED = "[2026-12-01] Exam update\nThe final exam has moved to Wednesday 2026-12-16, 09:00-12:00."
REVIEW = "[2026-12-01] Review session\nThe final exam review session has MOVED to Saturday 2026-12-12."
OLDER = "[2026-09-01] Exam plan\nThe final exam has moved to Monday 2026-12-14."
UNDATED = "Update\nThe final exam has moved to Thursday 2026-12-17."


@pytest.mark.parametrize(
    ("rival", "rival_score", "lead", "newer"),
    [
        (MOVED, 8.5, 1, (2026, 12, 1)),  # a later notice of a change, read as an answer too: first
        (REVIEW, 5.0, 0, None),  # a notice the reader does not read as the answer (outside the margin)
        (UNDATED, 8.5, 0, None),  # a change without a date is not known to be newer
    ],
)
def test_a_newer_notice_leads_only_when_the_reader_reads_it_as_an_answer(rival, rival_score, lead, newer):
    sources = sources_of(SYLLABUS, rival)
    readings = [reading(0, sources[0], 0, 9.0), reading(1, sources[1], len(sources[1].units) - 1, rival_score)]
    ordered, date = newer_lead(readings, sources, margin=1.0)
    assert (ordered[0].passage, date) == (lead, newer)


def test_a_notice_is_not_overruled_by_an_older_one():
    sources = sources_of(MOVED, OLDER)
    readings = [
        reading(0, sources[0], len(sources[0].units) - 1, 9.0),
        reading(1, sources[1], len(sources[1].units) - 1, 8.9),
    ]
    ordered, date = newer_lead(readings, sources, margin=1.0)
    assert (ordered[0].passage, date) == (0, None)


# E5's cosines of the question "When is the final exam?" with each source's units
MEANINGS = ([0.90, 0.80, 0.70], [0.75, 0.70])


@pytest.mark.parametrize(
    ("weight", "order"),
    [
        (0.0, [(1, 0), (0, 0)]),  # the reader's scores alone: the midterm's date first
        (10.0, [(1, 0), (0, 0)]),  # E5 prefers the final exam by 0.15: 1.5, less than the reader's 2.0
        (20.0, [(0, 0), (1, 0)]),  # 3.0 more than the reader's 2.0: the final exam first
    ],
)
def test_e5_s_cosine_with_the_span_s_unit_adds_its_weight_to_the_reader_s_score(weight, order):
    sources = sources_of(*SOURCES)
    readings = [reading(1, sources[1], 0, 9.0), reading(0, sources[0], 0, 7.0)]
    rescored = with_similarity(readings, sources, MEANINGS, weight)
    assert [(r.passage, 0) for r in rescored] == order
    assert rescored[order.index((0, 0))].score == pytest.approx(7.0 + weight * 0.90)


@pytest.mark.parametrize(("similarity", "quoted"), [(0.0, "midterm"), (20.0, "final exam")])
def test_the_answer_quotes_the_span_the_fitted_blend_ranks_first(similarity, quoted):
    sources = sources_of(*SOURCES)
    readings = [reading(1, sources[1], 0, 9.0), reading(0, sources[0], 0, 7.0)]
    calibration = ReaderCalibration(0.0, ReadParams(spans=1, similarity=similarity))
    said = compose_readings("When is the final exam?", sources, readings, False, calibration, MEANINGS)
    assert quoted in said.units[0].unit.text
    without = compose_readings("When is the final exam?", sources, readings, False, calibration)
    assert "midterm" in without.units[0].unit.text  # no cosines measured: the reader's order


class FixedReader:
    """A reader whose readings are given: the answerer's wiring, without a model."""

    def __init__(self, readings):
        self.readings = readings

    def read(self, question, passages):
        return self.readings


@pytest.mark.parametrize(("similarity", "consulted", "quoted"), [(0.0, 0, "midterm"), (20.0, 2, "final exam")])
def test_the_answerer_asks_e5_for_cosines_only_when_its_quotes_weigh_them(similarity, consulted, quoted):
    from types import SimpleNamespace

    from courserag.answers.extractive.read import ReadingAnswerer

    items = [item(text) for text in SOURCES]
    sources = sources_of(*SOURCES)
    reader = FixedReader([reading(1, sources[1], 0, 9.0), reading(0, sources[0], 0, 7.0)])
    asked = []

    def cosines(texts):
        asked.append(texts)
        return MEANINGS[0] if texts == [u.text for u in sources[0].units] else MEANINGS[1]

    answerer = ReadingAnswerer(reader, ReaderCalibration(0.0, ReadParams(spans=1, similarity=similarity)))
    query = SimpleNamespace(text="When is the final exam?", ask=SimpleNamespace(wants_list=False))
    said = answerer.compose(query, items, cosines)
    assert len(asked) == consulted and quoted in said.units[0].unit.text


PREREQUISITE = "Prerequisite: STAT 3470 or an equivalent course in probability."
LATE_POLICY = "Late homework loses 10% a day."


@pytest.mark.parametrize(
    ("codes", "named"),
    [
        ((), [PREREQUISITE, LATE_POLICY]),  # no code asked about: every item
        (("STAT3470",), [PREREQUISITE]),  # written "STAT 3470" in the syllabus
        (("MATH101",), []),  # no item names it
        (("STAT3470", "MATH101"), []),  # every code must be named
    ],
)
def test_a_question_about_a_code_no_listed_course_has_is_read_only_where_the_code_is_named(codes, named):
    assert [i.text for i in naming([item(PREREQUISITE), item(LATE_POLICY)], codes)] == named


def test_a_question_about_a_code_nothing_names_is_refused_without_reading():
    from types import SimpleNamespace

    from courserag.answers.extractive.read import ReadingAnswerer

    reader = FixedReader([])
    reader.read = lambda question, passages: pytest.fail("nothing names the code: nothing is read")
    query = SimpleNamespace(text="Which room is MATH 101 in?", ask=SimpleNamespace(wants_list=False))
    said = ReadingAnswerer(reader, ReaderCalibration(0.0)).compose(query, [item(LATE_POLICY)], None, ("MATH101",))
    assert (said.refused, said.reason, said.nearest) == (True, "missing_code", 1)


@pytest.mark.parametrize(
    ("question", "refused"),
    [("When is the final exam?", False), ("期末考试是什么时候？", True)],
)
def test_the_refusal_is_told_whether_the_question_is_written_in_chinese(question, refused):
    from courserag.answers.extractive.logistic import Logistic

    # a refusal that asks more of a Chinese question, whose E5 cosines run higher
    refusal = Logistic(("answerable_logit", "chinese"), (0.0, 0.0), (1.0, 1.0), (1.0, -5.0), 0.0)
    sources = sources_of(*SOURCES)
    readings = [reading(0, sources[0], 0, 9.0)]  # the head reads 0.9
    said = compose_readings(question, sources, readings, False, ReaderCalibration(0.5, refusal=refusal))
    assert said.refused is refused
    assert dict(said.features)["reader_chinese"] == float(refused)
