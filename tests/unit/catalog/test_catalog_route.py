"""The catalog's reply as the engine's sources (courserag/catalog/route.py): numbering,
renumbering the materials' markers after the catalog's, and disagreements said aloud."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from courserag.catalog.answers import answer_question
from courserag.catalog.load import load_catalog
from courserag.catalog.route import disagrees, fact_items, materials_part, record_of, shift_markers

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
def test_a_disagreement_with_the_materials_is_found(catalog, question, material, differs, read_intents):
    reply = answer_question(question, catalog, date(2026, 12, 1), catalog.by_workspace("csc3100"), read_intents)
    assert disagrees(reply, catalog, material) is differs


@pytest.mark.parametrize(
    "question, material, differs",
    [
        # a rule for one program's students is not what the catalog lists (issue 43, item 8)
        ("DS2010 有几个学分？", "- ECE 专业学生修读本课程计 2 学分（计入专业选修模块）。 [3]", False),
        ("How many credits is DS2010?", "- ECE students take it for 2 credits [2]", False),
        ("How many credits is DS2010?", "- ECE majors earn 2 credits [2]", False),
        ("How many credits is DS2010?", "- DS2010 is a 2-credit course [2]", True),
        ("DS2010 有几个学分？", "- 本课程计 2 学分。 [2]", True),
        # a prerequisite named by its title is named
        (
            "DS2010 的先修课程是什么？",
            "- MAT-2040 线性代数与离散数学； [2]\n- Python 程序设计（或同等水平的编程课程）。 [2]",
            False,
        ),
        ("DS2010 的先修课程是什么？", "- MAT-2040 线性代数与离散数学 [2]", True),
        ("What are the prerequisites of DS2010?", "- MAT2040 and CSC3100 [2]", True),
    ],
)
def test_a_disagreement_needs_both_to_speak_of_the_same_thing(catalog, question, material, differs, read_intents):
    reply = answer_question(question, catalog, date(2026, 12, 1), catalog.by_workspace("ds2010"), read_intents)
    assert disagrees(reply, catalog, material) is differs


@pytest.mark.parametrize(
    "material, lang, shown",
    [
        ("From the materials:\n**3** [2]", "en", "The course materials say:\n**3** [2]"),
        ("根据资料：\n**3** [2]", "zh", "课程资料中的说法：\n**3** [2]"),
        (
            "From the course materials (quoted in Chinese, as they are written):\n- 计 3 学分 [2]",
            "en",
            "From the course materials (quoted in Chinese, as they are written):\n- 计 3 学分 [2]",
        ),
        ("A model's answer: 3 credits [2].", "en", "The course materials say:\nA model's answer: 3 credits [2]."),
    ],
)
def test_the_materials_part_is_introduced_once(material, lang, shown):
    assert materials_part(material, lang) == shown


def test_catalog_facts_become_numbered_sources_with_their_record(catalog, read_intents):
    reply = answer_question("Which sections of CSC3100 run next term?", catalog, date(2026, 12, 1), None, read_intents)
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
