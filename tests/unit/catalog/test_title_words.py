"""A course title that is also a common word names its course only as written: "an
algorithm" in a question about cryptography is not the course "Algorithms" (a former title
of CSC4120), nor is "演算法" the course "算法"; longer titles still match loosely typed."""

from __future__ import annotations

from pathlib import Path

import pytest

from courserag.catalog.codes import titles_in
from courserag.catalog.load import load_catalog

SAMPLE = Path(__file__).resolve().parents[3] / "catalog"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(SAMPLE)


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("What is one type of public key cryptography algorithm?", []),
        ("学习演算法的一些训练样本说明了什么？", []),
        ("What is Algorithms about?", ["CSC4120"]),
        ("算法设计与分析讲什么", ["CSC4120"]),
        ("How many credits is operating system?", ["CSC3150"]),
        ("design & analysis of algorithm prerequisites", ["CSC4120"]),
        ("数据结构几个学分", ["CSC3100"]),
    ],
)
def test_a_title_that_is_a_common_word_names_its_course_only_as_written(catalog, text, codes):
    assert [course.code for course, _ in titles_in(text, catalog)] == codes
