"""The catalog's reply as the engine's sources (courserag/catalog/route.py): numbering,
renumbering the materials' markers after the catalog's, and disagreements said aloud."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from courserag.catalog.answers import answer_question
from courserag.catalog.load import load_catalog
from courserag.catalog.route import disagrees, fact_items, record_of, shift_markers

SAMPLE = Path(__file__).resolve().parents[3] / "catalog"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(SAMPLE)


@pytest.mark.parametrize(
    "text, by, expected",
    [
        ("The late policy is 10% a day [1].", 2, "The late policy is 10% a day [3]."),
        ("Both [1][2] and 【1】 and [1, 3]", 1, "Both [2][3] and 【2】 and [2, 4]"),
        ("No markers, 2026-10-20 at 10:30.", 5, "No markers, 2026-10-20 at 10:30."),
    ],
)
def test_markers_move_after_the_catalog_sources(text, by, expected):
    assert shift_markers(text, by) == expected


@pytest.mark.parametrize(
    "question, material, differs",
    [
        ("How many credits is CSC3100?", "CSC3100 is a 3-credit undergraduate course [1].", False),
        ("How many credits is CSC3100?", "CSC3100 is a 4-credit undergraduate course [1].", True),
        ("这门课几个学分？", "本课程计 3 学分。", False),
        (
            "What are the prerequisites for CSC3100?",
            "MAT-2040 Linear Algebra, and CSC1001 Introduction to Programming [1]",
            False,
        ),
        ("What are the prerequisites for CSC3100?", "MAT-2040 Linear Algebra only [1]", True),
        (
            "What are the prerequisites for CSC3100?",
            "Some programming experience [1]",
            False,
        ),  # nothing exact to compare
    ],
)
def test_a_disagreement_with_the_materials_is_found(catalog, question, material, differs):
    reply = answer_question(question, catalog, date(2026, 12, 1), catalog.by_workspace("csc3100"))
    assert disagrees(reply, catalog, material) is differs


def test_catalog_facts_become_numbered_sources_with_their_record(catalog):
    reply = answer_question("Which sections of CSC3100 run next term?", catalog, date(2026, 12, 1), None)
    items = fact_items(catalog, reply.facts)
    assert [i.n for i in items] == [1, 2]
    assert (
        items[0].hit.chunk.source == "catalog/sections.csv"
        and items[0].hit.chunk.locator == "row 25 · 2027SP CSC3100 L01"
    )
    assert record_of(catalog, reply.facts[0]) == {
        "file": "catalog/sections.csv",
        "rows": [25],
        "record": "2027SP CSC3100 L01",
    }
