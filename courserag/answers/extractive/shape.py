"""What a line looks like, not what it says: a heading, a contents line, a grid of a schedule.

PDF text flattens headings, tables of contents and calendar grids into lines that name the
question's words without answering it ("Key facts to remember", "3.2 Open addressing ....
41", "Week 1 Week 2 Mon Tue 9 10 11"). These tests see only a line's shape (length, end
punctuation, leaders, how much of it is numbers), so they hold in any course and language;
the unit model weighs `heading_like`, and a contents line is never quoted. Pure functions.
"""

from __future__ import annotations

import re

from courserag.answers.extractive.params import PARAMS
from courserag.lang.script import IDEOGRAPH, IDEOGRAPHS

_TOKEN = re.compile(rf"[{IDEOGRAPHS}]|[^\W_]+", re.UNICODE)
_NUMBER = re.compile(r"^\d+(?:[.:/-]\d+)*$")
_SENTENCE_END = frozenset(".!?。！？；;:：)）]")  # the last character of a sentence
# Dot or dash leaders ending in a page number: a contents line ("Hashing ........ 41").
_LEADERS = re.compile(r"(?:\.\s?){4,}|…{2,}|·{3,}|_{4,}|-{4,}")
_PAGE_END = re.compile(r"\d{1,4}\s*$")
# Leaders and a page number inside the line: PDF text runs a contents page's entries into
# one line ("Grading ........ 6 Section 10: Makeup exams ......"), which may end anywhere.
# A number followed by % or a decimal is a value, not a page.
_LEADERS_THEN_PAGE = re.compile(rf"(?:{_LEADERS.pattern})\s*\d{{1,4}}(?![\d%.,:/])")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _ends_sentence(text: str) -> bool:
    stripped = text.rstrip()
    return bool(stripped) and stripped[-1] in _SENTENCE_END


def contents_line(text: str) -> bool:
    """A line of a table of contents: leaders, then a page number (at its end, or between
    entries run together)."""
    return bool(_LEADERS_THEN_PAGE.search(text)) or (bool(_LEADERS.search(text)) and bool(_PAGE_END.search(text)))


def grid_line(text: str) -> bool:
    """A schedule grid or table flattened into one line: long, mostly numbers, not a sentence."""
    if _ends_sentence(text):
        return False
    tokens = _tokens(text)
    if len(tokens) < PARAMS.grid_tokens:
        return False
    return sum(1 for t in tokens if _NUMBER.match(t)) / len(tokens) >= PARAMS.grid_number_share


def heading_like(text: str) -> bool:
    """A title, a contents line or a grid: nothing a learner would read as an answer."""
    stripped = text.strip()
    if not stripped:
        return True
    if contents_line(stripped):
        return True  # even where its last entry ends in "?" ("What does the course satisfy? ....5")
    if _ends_sentence(stripped):
        return False  # a sentence; a grid ends in a cell
    if grid_line(stripped):
        return True
    if ":" in stripped or "：" in stripped:
        return False
    tokens = _tokens(stripped)
    cjk = sum(1 for t in tokens if IDEOGRAPH.fullmatch(t))
    return len(tokens) - cjk + cjk / 2 <= PARAMS.short_words  # two CJK characters read about as one word
