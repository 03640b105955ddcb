"""A Markdown table in a cited passage is shown as a table in the source panel, the rows the
answer drew on highlighted (rendering/sources.passage_blocks, render._passage_html). Issue 43,
item 4."""

from __future__ import annotations

import pytest

from courserag.ui.rendering.render import render_citations
from courserag.ui.rendering.sources import passage_blocks, table_cells

TEAM = [
    "| Name | Role | Email |",
    "|------|:----:|-------|",
    "| Dr. Elena Marsh | Course coordinator | elena.marsh@example.edu |",
    r"| Tom | TA \| grader | tom@example.edu |",
]


@pytest.mark.parametrize(
    "lines, blocks",
    [
        (TEAM, [[["Name", "Role", "Email"], ["Dr. Elena Marsh", "Course coordinator", "elena.marsh@example.edu"],
                 ["Tom", "TA | grader", "tom@example.edu"]]]),
        (["Instructors", *TEAM[:3], "Office hours are on the portal."],
         ["Instructors", [["Name", "Role", "Email"], ["Dr. Elena Marsh", "Course coordinator", "elena.marsh@example.edu"]],
          "Office hours are on the portal."]),
        (["| a | b |", "| c | d |"], ["| a | b |", "| c | d |"]),  # no rule line: not a table
        (["|x| is the absolute value."], ["|x| is the absolute value."]),
        (["| only | a header |", "|---|---|"], [[["only", "a header"]]]),
    ],
)  # fmt: skip
def test_a_markdown_table_is_one_block_of_cells(lines, blocks):
    assert passage_blocks(lines) == blocks


@pytest.mark.parametrize(
    "line, cells",
    [("| a | b |", ["a", "b"]), (r"| a \| b | c |", ["a | b", "c"]), ("|  | x |", ["", "x"])],
)
def test_a_table_line_is_split_at_its_unescaped_pipes(line, cells):
    assert table_cells(line) == cells


def test_the_panel_shows_the_table_and_marks_the_row_the_answer_used():
    cite = {"n": 1, "source": "syllabus.md", "locator": "Teaching team", "origin": "course", "text": "\n".join(TEAM)}
    answer = "The coordinator is Dr. Elena Marsh, Course coordinator, elena.marsh@example.edu [1]."
    shown = render_citations([cite], "en", {}, answer)
    assert "<th>Name</th><th>Role</th><th>Email</th>" in shown and "|---" not in shown and "| Name |" not in shown
    assert "<td><mark>Dr. Elena Marsh</mark></td>" in shown and "<td>Tom</td>" in shown
