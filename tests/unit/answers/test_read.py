"""The reader's answer maps its span back to the units that hold it (answers/extractive/read.py)."""

from __future__ import annotations

import pytest

from courserag.answers.extractive.read import covered, read_source, whole_list
from courserag.answers.extractive.units import Unit
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
