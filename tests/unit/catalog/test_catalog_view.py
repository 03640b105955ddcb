"""The Catalog tab's HTML (courserag/ui/roadmap/views.py): roadmap and card, both languages."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from courserag.catalog.load import load_catalog
from courserag.ui.roadmap.views import card_html, program_choices, roadmap_html

SAMPLE = Path(__file__).resolve().parents[3] / "catalog"
FALL, SPRING = date(2026, 12, 1), date(2027, 3, 1)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(SAMPLE)


@pytest.mark.parametrize(
    "lang, year, credits, this_term",
    [
        ("en", "Year 1", "3 credits", "This term: L01 Mon/Wed 14:00–15:20 · 理学楼 305"),
        ("zh", "第一学年（大一）", "3 学分", "本学期：L01 周一/周三 14:00–15:20 · 理学楼 305"),
    ],
)
def test_the_roadmap_lists_a_programs_courses_by_year_and_module(catalog, lang, year, credits, this_term):
    page = roadmap_html(catalog, "BSC-DS", lang, FALL)
    assert re.findall(r'data-year="(\d)"', page) == ["1", "2", "3", "4"]
    assert f"<h3>{year}</h3>" in page
    codes = re.findall(r'class="cr-road-course" data-code="([A-Z0-9]+)"', page)
    assert len(codes) == sum(1 for r in catalog.requirements if r.program == "BSC-DS")
    ds2010 = page[page.index('data-code="DS2010"') :].split("</button>")[0]
    assert credits in ds2010 and this_term in ds2010 and "MAT2040" in ds2010


def test_a_course_not_offered_this_term_says_so(catalog):
    page = roadmap_html(catalog, "BSC-DS", "en", FALL)
    sta3020 = page[page.index('data-code="STA3020"') :].split("</button>")[0]
    assert "Not offered this term" in sta3020
    assert (
        "This term: L01"
        in roadmap_html(catalog, "BSC-DS", "en", SPRING).split('data-code="STA3020"')[1].split("</button>")[0]
    )


def test_catalog_text_is_escaped(catalog):
    course = catalog.courses["CSC3100"]
    hostile = replace(
        catalog, courses={**catalog.courses, "CSC3100": replace(course, title_en="<img src=x onerror=alert(1)>")}
    )
    for page in (roadmap_html(hostile, "BSC-CS", "en", FALL), card_html(hostile, "CSC3100", "en", None)):
        assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


@pytest.mark.parametrize(
    "code, workspace, lang, expected",
    [
        (
            "CSC3100",
            "CSC3100 Data Structures",
            "en",
            [
                "Selected for the chat: CSC3100 Data Structures",
                "Spring 2027",
                "courses.csv row 15",
                "BSc Data Science: elective, year 2",
            ],
        ),
        ("DS3020", None, "zh", ["其他代码：CSC3020", "本课程在学习助手中没有学习空间", "后续课程：DS4020"]),
        ("CSC4120", None, "en", ["Also listed as CSC3200", "Needed for: CSC4130 Compilers"]),
    ],
)
def test_the_card_shows_every_catalog_fact(catalog, code, workspace, lang, expected):
    card = card_html(catalog, code, lang, workspace)
    for text in expected:
        assert text in card, text


def test_program_choices_follow_the_language(catalog):
    assert program_choices(catalog, "zh") == [("计算机科学理学学士", "BSC-CS"), ("数据科学理学学士", "BSC-DS")]
    assert program_choices(None, "en") == []


def test_one_credit_is_singular(catalog):
    page = roadmap_html(catalog, "BSC-CS", "en", FALL)
    csc1002 = page[page.index('data-code="CSC1002"') :].split("</button>")[0]
    assert "1 credit ·" in csc1002
