"""One list of abbreviations (courserag/lang/abbreviations.yaml) and every sentence splitter
the product uses reading it: the chunker's, the quoting answer's and the source panel's."""

from __future__ import annotations

import pytest

from courserag.answers.extractive.sentences import split_sentences as quoted_sentences
from courserag.ingest.chunking import split_sentences as chunk_sentences
from courserag.lang.abbreviations import abbreviations, ends_abbreviation
from courserag.ui.rendering.sources import sentences as panel_sentences


@pytest.mark.parametrize(
    "text, ends",
    [
        ("permission from Dr. Elena Marsh", True),
        ("ask Prof. Li", True),
        ("a heap, e.g. a binary one", True),
        ("that is, i.e. the root", True),
        ("see No. 3", True),
        ("merge vs. quick sort", True),
        ("lists, sets etc. and maps", True),
        ("T. H. Cormen", True),  # an initial
        ("请联系 Dr. 王老师", True),  # an English title in Chinese text
        ("The heap is full. Then", False),
        ("Plan it. Now", False),
        ("3.5 credits", False),  # not a period before a space: never asked
        ("", False),
    ],
)
def test_a_period_after_an_abbreviation_or_initial_ends_no_sentence(text, ends):
    dot = text.find(". ") if ". " in text else text.find(".")
    assert ends_abbreviation(text, dot) is ends


def test_the_list_is_data_and_reads_no_as_a_word():
    words = abbreviations()
    assert {"dr", "prof", "e.g", "i.e", "no", "vs", "etc"} <= words and False not in words


DR = "Students need written permission from the course coordinator, Dr. Elena Marsh, before Week 2."
CASES = [
    (DR + " Then they enrol.", [DR, "Then they enrol."]),
    ("Use a heap, e.g. a binary heap. It is fast.", ["Use a heap, e.g. a binary heap.", "It is fast."]),
    ("See Fig. 3 and No. 4. Done.", ["See Fig. 3 and No. 4.", "Done."]),
    ("请联系 Prof. Wang。然后选课。", ["请联系 Prof. Wang。", "然后选课。"]),
]


@pytest.mark.parametrize("text, expected", CASES)
@pytest.mark.parametrize("split", [quoted_sentences, chunk_sentences], ids=["answer", "chunker"])
def test_every_splitter_keeps_an_abbreviation_inside_its_sentence(split, text, expected):
    assert split(text) == expected


@pytest.mark.parametrize("text, expected", CASES)
def test_the_source_panel_highlights_whole_sentences_across_an_abbreviation(text, expected):
    pieces = panel_sentences(text)
    assert "".join(pieces) == text
    assert [p.strip() for p in pieces if p.strip()] == expected
