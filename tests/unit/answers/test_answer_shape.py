"""The answer's shape: short fact first, no repeats, a word budget, no headings quoted (issue 19)."""

import pytest

from courserag.answers.extractive.answer_shape import (
    clip_words,
    distinct,
    fact_spans,
    paragraph_quotes,
    quotable,
    render_lines,
    short_fact,
    within_budget,
    words_in,
)
from courserag.answers.extractive.shape import contents_line, grid_line, heading_like

DATE = frozenset({"date", "time"})
NUMBER = frozenset({"number"})
PLACE = frozenset({"place"})


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Key facts to remember", True),  # a title
        ("3.2 Open addressing ........ 41", True),  # a contents line
        ("Week 1 Week 2 Mon Tue 9 10 11 12 13 14 15 16 17 18", True),  # a flattened grid
        ("期中考试安排", True),
        ("The midterm is on Oct 12.", False),
        ("Midterm: Oct 12", False),
        ("期中考试在第8周周三举行。", False),
        ("Quizzes (10 total)", False),
        ("", True),
    ],
)
def test_heading_like(text, expected):
    assert heading_like(text) is expected


@pytest.mark.parametrize(
    "text, contents, grid",
    [
        ("Hashing ........ 41", True, False),
        ("Hashing …… 41", True, False),
        # entries run into one line by PDF text, its last one cut anywhere
        ("Grading ........ 6 What does this course satisfy? ....5 For minors .......", True, False),
        ("Homework ---- 40% of the grade", False, False),  # a value after a dash rule, not a page
        ("The list ends here.", False, False),
        ("1 2 3 4 5 6 7 8 9 10 11 12 Mon", False, True),
        ("There are 12 weeks, 3 exams and 10 quizzes in this course of 4 credits for 2 terms.", False, False),
    ],
)
def test_contents_and_grid_lines(text, contents, grid):
    assert contents_line(text) is contents and grid_line(text) is grid


@pytest.mark.parametrize(
    "text, kinds, spans",
    [
        ("The midterm is on Wed, Oct 12 in SCI-201.", ("date", "time"), ["Wed, Oct 12"]),
        ("Quizzes (10 total) are given weekly.", ("number",), ["10"]),
        ("Exams on Oct 12 and Dec 3.", ("date",), ["Oct 12", "Dec 3"]),
        # a number inside a code is the code's; a room code still answers "where"
        ("遵守学术诚信规定（X-2023-001）。", ("number",), []),
        ("Submit HW2 by Friday; it is worth 15%.", ("number", "percent"), ["15%"]),
        ("The lab is in Room SCI-201.", ("place",), ["Room SCI-201"]),
        ("No dates here.", ("date",), []),
        (
            "Date and time: Tuesday 2026-12-15, 09:00–12:00 (3 hours).",
            ("date", "time"),
            ["Tuesday 2026-12-15, 09:00–12:00"],
        ),
    ],
)
def test_fact_spans(text, kinds, spans):
    assert fact_spans(text, kinds) == spans


@pytest.mark.parametrize(
    "text, needs, fact",
    [
        ("The midterm is on Wed, Oct 12 in SCI-201.", [DATE], "Wed, Oct 12"),
        ("The midterm is in room SCI-201.", [PLACE], "room SCI-201"),
        ("Exams on Oct 12 and Dec 3.", [DATE], None),  # two dates: the quote speaks for itself
        ("The midterm is on Oct 12.", [], None),  # no fact asked for
        ("Oct 12", [DATE], None),  # the quote is the fact
        ("The second sub-project is due on October 25.", [NUMBER], None),  # a date's day is no count
        ("Office hours are online.", [DATE, PLACE], None),  # two kinds asked: the quotes answer
    ],
)
def test_short_fact(text, needs, fact):
    assert short_fact(text, needs) == fact


@pytest.mark.parametrize(
    "text, kinds, needs, expected",
    [
        ("Key facts to remember", frozenset(), [], False),
        ("Final exam Dec 12", frozenset({"date"}), [DATE], True),  # a short line holding the date asked for
        ("Hashing ........ 41", frozenset({"number"}), [NUMBER], False),
        ("Late work loses 10% a day.", frozenset({"percent"}), [], True),
    ],
)
def test_quotable(text, kinds, needs, expected):
    assert quotable(text, kinds, needs) is expected


@pytest.mark.parametrize(
    "texts, kept",
    [
        (["Key facts.", "Key facts.", "Other."], [0, 2]),
        (["A long sentence here.", "long sentence", "B."], [0, 2]),  # inside an earlier one
        (["a", "A"], [0]),  # case does not make it new
        (["", "x"], [1]),
    ],
)
def test_distinct(texts, kept):
    assert distinct(texts) == kept


@pytest.mark.parametrize("lengths, budget, n", [([50, 50, 50], 120, 3), ([130, 5], 120, 1), ([], 120, 0)])
def test_within_budget(lengths, budget, n):
    assert within_budget(lengths, budget) == n


def test_clip_words_counts_cjk_characters_as_words():
    assert clip_words("one two three four", 2) == "one two …"
    assert clip_words("期中考试", 2) == "期中 …"
    assert clip_words("short", 5) == "short"


@pytest.mark.parametrize(
    "quotes, fact, wants_list, lines",
    [
        ([("The midterm is on Oct 12.", 1)], "Oct 12", False, ["**Oct 12** [1]", "- The midterm is on Oct 12. [1]"]),
        ([("a b", 1), ("c d", 2)], None, False, ["- a b [1]", "- c d [2]"]),
        ([(" ".join(["w"] * 130), 1), ("next", 2)], None, False, ["- " + " ".join(["w"] * 120) + " … [1]"]),
        ([(" ".join(["w"] * 130), 1), ("next", 2)], None, True, ["- " + " ".join(["w"] * 130) + " [1]", "- next [2]"]),
    ],
)
def test_render_lines(quotes, fact, wants_list, lines):
    assert render_lines(quotes, fact, wants_list) == lines


def test_words_in():
    assert words_in("Office hours: Mon 10:00, 期中") == 6


@pytest.mark.parametrize(
    "pieces, quotes",
    [
        # sentences that follow each other in one source read as one paragraph
        ([("A.", 1, 3, "sentence"), ("B.", 1, 4, "sentence")], [("A. B.", 1)]),
        # CJK sentences join without a space
        (
            [("迟交扣分。", 1, 0, "sentence"), ("超过三天记零分。", 1, 1, "sentence")],
            [("迟交扣分。超过三天记零分。", 1)],
        ),
        # a gap, another source, a list item or a table row keeps its own line
        ([("A.", 1, 3, "sentence"), ("C.", 1, 5, "sentence")], [("A.", 1), ("C.", 1)]),
        ([("A.", 1, 3, "sentence"), ("B.", 2, 4, "sentence")], [("A.", 1), ("B.", 2)]),
        ([("Cases:", 1, 0, "sentence"), ("- one", 1, 1, "item")], [("Cases:", 1), ("- one", 1)]),
        (
            [("HW1 — Due: May 1", 1, 0, "row"), ("HW2 — Due: May 8", 1, 1, "row")],
            [("HW1 — Due: May 1", 1), ("HW2 — Due: May 8", 1)],
        ),
        ([], []),
    ],
)
def test_consecutive_sentences_of_a_source_read_as_one_paragraph(pieces, quotes):
    assert paragraph_quotes(pieces) == quotes
