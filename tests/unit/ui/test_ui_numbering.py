"""The numbers a learner sees on sources (courserag/ui/rendering/numbering.py, cited.renumber) and the
other small display rules: a notebook's Markdown cell shown as prose, and the course line of
narrow screens (issue 21, point 6)."""

from __future__ import annotations

import pytest

from courserag.answers.cited import renumber
from courserag.retrieval.session_pool import UploadedFile
from courserag.ui.rendering.numbering import display_numbers
from courserag.ui.rendering.render import format_reply, render_course_chip, render_notes
from courserag.ui.rendering.sources import is_prose


def cites(*numbers: int) -> list[dict]:
    return [{"n": n, "source": f"file{n}.md", "locator": "", "origin": "course", "text": f"text {n}"} for n in numbers]


@pytest.mark.parametrize(
    "text, mapping, shown",
    [
        ("A [2].", {2: 1, 1: 2}, "A [1]."),
        ("A [2][3] and [2, 3].", {2: 1, 3: 2, 1: 3}, "A [1][2] and [1, 2]."),
        ("甲【3】乙[3，1]", {3: 1, 1: 2}, "甲【1】乙[1，2]"),
        ("Nothing marked.", {1: 2}, "Nothing marked."),
        ("Unknown [9] stays.", {1: 2}, "Unknown [9] stays."),
    ],
)
def test_renumber_keeps_each_markers_own_brackets(text, mapping, shown):
    assert renumber(text, mapping) == shown


@pytest.mark.parametrize(
    "text, given, shown_text, shown_order",
    [
        ("Late work loses 10% [2].", (1, 2, 3), "Late work loses 10% [1].", [(2, 1), (1, 2), (3, 3)]),
        ("B [3] then A [1].", (1, 2, 3), "B [1] then A [2].", [(3, 1), (1, 2), (2, 3)]),
        ("Both [1][2].", (1, 2), "Both [1][2].", [(1, 1), (2, 2)]),  # nothing moves
        ("No markers at all.", (1, 2), "No markers at all.", [(1, 1), (2, 2)]),  # all count as cited
    ],
)
def test_cited_sources_are_numbered_first_in_the_order_the_answer_marks_them(text, given, shown_text, shown_order):
    new_text, new_cites = display_numbers(text, cites(*given))
    assert new_text == shown_text
    assert [(int(c["source"][4:-3]), c["n"]) for c in new_cites] == shown_order


def test_an_answer_drawn_from_its_second_source_shows_it_as_1_and_folds_the_first_as_2():
    shown = format_reply("The late penalty is 10% per day [2].", False, cites(1, 2), "en", {})
    assert "[1]</button>" in shown and "[2]</button>" not in shown
    listed, folded = shown.split('<details class="cr-consulted">')
    assert '<span class="cr-n">[1]</span> <span class="cr-fname">file2.md' in listed
    assert '<span class="cr-n">[2]</span> <span class="cr-fname">file1.md' in folded


@pytest.mark.parametrize(
    "text, prose",
    [
        ("# Sorting lab\n\nIn this lab we compare insertion sort and merge sort. Merge sort is stable.", True),
        ("## Results\n\n- insertion sort is quadratic\n- merge sort is n log n", True),
        ("Stability means that equal keys keep their order.", True),
        ("def merge(a, b):\n    out = []\n    return out", False),
        ("import numpy as np\nx = np.arange(10)\nprint(x)", False),
        ("x = 3\n\nOutput:\n3", False),
        ("sorted(values)", False),
    ],
)
def test_a_notebooks_markdown_cell_reads_as_prose_and_its_code_as_code(text, prose):
    assert is_prose(text, "ipynb") is prose
    assert is_prose(text, "py") is False  # a Python file is code throughout


def test_a_markdown_cell_opens_as_paragraphs_not_monospace_code():
    cell = [
        {
            "n": 1,
            "source": "lab.ipynb",
            "locator": "cell 2",
            "origin": "course",
            "doc_type": "ipynb",
            "text": "Merge sort is stable because\nequal keys keep the order they had.",
        }
    ]
    code = [dict(cell[0], text="def merge(a, b):\n    return sorted(a + b)")]
    prose_html = format_reply("Merge sort is stable [1].", False, cell, "en", {})
    assert 'class="cr-passage"' in prose_html and "cr-code" not in prose_html
    assert prose_html.count('class="cr-para"') == 1  # the wrapped lines joined into one paragraph
    assert 'class="cr-passage cr-code"' in format_reply("See [1].", False, code, "en", {})


@pytest.mark.parametrize("lang, said", [("en", "Course: <b>CSC3100"), ("zh", "课程: <b>CSC3100")])
def test_the_course_line_names_the_course_in_use(lang, said):
    assert said in render_course_chip("CSC3100 Data Structures", lang)
    assert render_course_chip("", lang) == ""


def test_the_notes_table_sits_in_a_box_that_scrolls_rather_than_overflows():
    files = [
        UploadedFile(
            name="第三周笔记.docx", file_hash="h", doc_type="docx", chunks=2, units=3, size_bytes=10, unit="paragraph"
        )
    ]
    shown = render_notes(files, "zh")
    assert shown.startswith('<div class="cr-notes-wrap"><table class="cr-notes">') and "第三周笔记.docx" in shown
