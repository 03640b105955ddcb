"""The catalog's answer as passages that compete with the materials (catalog/evidence.py):
one per sentence, led by what it answers in a learner's words, without source markers,
cited to the rows the sentence states."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from courserag.catalog.answers import write_reply
from courserag.catalog.evidence import answer_passages
from courserag.catalog.load import load_catalog
from courserag.catalog.questions import detect

SAMPLE = Path(__file__).resolve().parents[3] / "catalog"
TODAY = date(2026, 12, 1)  # in the sample's Fall 2026; Spring 2027 is next


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(SAMPLE)


@pytest.mark.parametrize(
    "question, workspace, intent, lead, says, source",
    [
        (
            "Which sections run next term?",
            "csc3100",
            "sections",
            "Whether, when and where this course (CSC3100 Data Structures) is offered next term (Spring 2027)",
            "section L01 (lecture)",
            "catalog/sections.csv",
        ),
        (
            "这门课本学期在哪个教室上课？",
            "ds2010",
            "sections",
            "这门课（DS2010 数据科学导论）本学期（2026 秋季）是否开课",
            "L01 班",
            "catalog/sections.csv",
        ),
        (
            "What can I take after this course?",
            "csc3100",
            "reverse",
            "The courses you can take after this course (CSC3100 Data Structures)",
            "CSC3150 Operating Systems",
            "catalog/courses.csv",
        ),
        (
            "这门课几个学分？",
            "ds2010",
            "credits",
            "这门课（DS2010 数据科学导论）的学分：",
            "3 学分",
            "catalog/courses.csv",
        ),
    ],
)
def test_the_catalogs_answer_is_offered_as_sentences_led_by_what_they_answer(
    catalog, question, workspace, intent, lead, says, source
):
    asked = detect(question, catalog, TODAY, catalog.by_workspace(workspace), lambda text: (intent,))
    passages = answer_passages(write_reply(asked, catalog), catalog, TODAY)
    assert passages and all(p.text.startswith(lead) for p in passages)
    assert says in passages[0].text and passages[0].source == source
    assert not re.search(r"\[\d+\]", " ".join(p.text for p in passages))  # markers of a reply, not of a passage
