"""How a chosen answer reads: the short fact first, the quotes under it, nothing twice, not too long.

A learner reads an answer in seconds: when the question asks for a fact (a date, a number, a
room, a name, an address) and the leading quote holds exactly one such fact, that fact comes
first, then the quotes; at most 120 words (`PARAMS.max_answer_words`) unless a list was asked for (a list is
quoted whole); a quote that repeats another (the same sentence in two sources) is left out;
a contents line, a flattened grid or a heading that holds nothing asked for is never quoted.
Pure functions over texts.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from courserag.answers.extractive.entities import PATTERNS
from courserag.answers.extractive.params import PARAMS
from courserag.answers.extractive.shape import contents_line, grid_line, heading_like
from courserag.lang.script import IDEOGRAPHS, joins_without_space

ANSWER_WORD = re.compile(rf"[{IDEOGRAPHS}]|[A-Za-z0-9]+(?:[.,:/-][A-Za-z0-9]+)*")
# The kinds of fact that can be said in a few words before the quote (a rule or a condition
# is a sentence, not a fact).
SHORT_FACTS = (
    "date",
    "time",
    "place",
    "room",
    "person",
    "email",
    "phone",
    "percent",
    "duration",
    "number",
    "messaging",
)
# What may stand between two parts of one fact ("Wed, Oct 12", "09:00–12:00").
_JOINER = re.compile(r"^[\s,，、\-–—~至到]{0,3}$")


def words_in(text: str) -> int:
    """Its length as answer_eval counts it (a CJK character is one word)."""
    return len(ANSWER_WORD.findall(text))


def clip_words(text: str, budget: int) -> str:
    """The text cut after `budget` words, marked with an ellipsis when cut."""
    matches = list(ANSWER_WORD.finditer(text))
    if len(matches) <= budget:
        return text
    return text[: matches[budget - 1].end()].rstrip() + " …"


_CODE_LIKE = re.compile(r"\b[A-Za-z]+(?:-\d+)+\b|\b[A-Za-z]+\d+\w*")


def fact_spans(text: str, kinds: Iterable[str]) -> list[str]:
    """The distinct facts of the given kinds in a text, neighbouring parts joined
    ("Wed, Oct 12 at 10:00" is one), in order."""
    kinds = list(kinds)
    # A number inside a date ("October 25") is the date's, not a count asked for; one inside
    # a code ("X-2023-001", "HW2") is the code's (a room code is a place: kept for "where").
    taken = [] if "date" in kinds else [m.span() for m in PATTERNS["date"].finditer(text)]
    if "place" not in kinds and "room" not in kinds:
        taken += [m.span() for m in _CODE_LIKE.finditer(text)]
    found = sorted(
        (m.start(), m.end())
        for kind in kinds
        if kind in PATTERNS
        for m in PATTERNS[kind].finditer(text)
        if m.group() and not any(s <= m.start() and m.end() <= e for s, e in taken)
    )
    merged: list[list[int]] = []
    for start, end in found:
        if merged and (start <= merged[-1][1] or _JOINER.match(text[merged[-1][1] : start])):
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    spans = [text[s:e].strip(" ,，、") for s, e in merged]
    return list(dict.fromkeys(s for s in spans if s))


def _fact_kinds(needs: Sequence[frozenset[str]]) -> list[str]:
    """The asked kinds a short fact line can say."""
    return [k for need in needs for k in sorted(need) if k in SHORT_FACTS]


def holds_fact(text: str, needs: Sequence[frozenset[str]]) -> bool:
    """The text holds a fact of a kind a short fact line could say."""
    return bool(fact_spans(text, _fact_kinds(needs)))


def short_fact(text: str, needs: Sequence[frozenset[str]]) -> str | None:
    """The one fact the question asks for, when the quote holds exactly one of it (two
    dates, or none, and the quote must speak for itself). Only for a question that asks for
    one kind of fact: "when and where" is answered by the quotes."""
    kinds = _fact_kinds(needs)
    if not kinds or len(needs) != 1:
        return None
    spans = fact_spans(text, kinds)
    if len(spans) != 1 or words_in(spans[0]) > PARAMS.max_fact_words or spans[0].strip() == text.strip():
        return None
    return spans[0]


def quotable(
    text: str, kinds: frozenset[str], needs: Sequence[frozenset[str]], looks_like_heading: bool | None = None
) -> bool:
    """Not a contents line or a grid, and not a heading unless it holds a fact asked for.
    `looks_like_heading`: heading_like(text), when already known (the unit features hold it)."""
    if looks_like_heading is None:
        looks_like_heading = heading_like(text)
    if not looks_like_heading:
        return True
    if contents_line(text) or grid_line(text):
        return False
    return any(need & kinds for need in needs)


def _key(text: str) -> str:
    return " ".join(w.lower() for w in ANSWER_WORD.findall(text))


def distinct(texts: Sequence[str]) -> list[int]:
    """The indexes of texts that repeat no earlier one (same words, or inside an earlier one)."""
    kept: list[int] = []
    keys: list[str] = []
    for i, text in enumerate(texts):
        key = _key(text)
        if key and not any(key == k or f" {key} " in f" {k} " for k in keys):
            kept.append(i)
            keys.append(key)
    return kept


def within_budget(lengths: Sequence[int], budget: int = PARAMS.max_answer_words) -> int:
    """How many leading units start within the first `budget` words (the first always)."""
    used = 0
    for i, length in enumerate(lengths):
        if i and used >= budget:
            return i
        used += length
    return len(lengths)


def paragraph_quotes(pieces: Sequence[tuple[str, int, int, str]]) -> list[tuple[str, int]]:
    """(text, source) quotes from (text, source, position, kind) units in answer order: the
    sentences that follow each other in one source read as one paragraph; list items and
    table rows keep a line each."""
    out: list[tuple[str, int]] = []
    previous = None
    for text, n, position, kind in pieces:
        if (
            previous
            and kind == "sentence"
            and previous[3] == "sentence"
            and (n, position) == (previous[1], previous[2] + 1)
        ):
            glue = "" if joins_without_space(out[-1][0], text) else " "
            out[-1] = (out[-1][0] + glue + text, n)
        else:
            out.append((text, n))
        previous = (text, n, position, kind)
    return out


def render_lines(
    quotes: Sequence[tuple[str, int]], fact: str | None, wants_list: bool, fact_n: int | None = None
) -> list[str]:
    """The answer's lines: the fact (cited with its source, by default the first quote's),
    then one bullet per quote; outside a list, cut at `PARAMS.max_answer_words` words in all."""
    lines = [f"**{fact}** [{fact_n or quotes[0][1]}]"] if fact and quotes else []
    budget = PARAMS.max_answer_words - (words_in(fact) if lines else 0)
    for text, n in quotes:
        if not wants_list:
            if budget <= 0:
                break
            text = clip_words(text, budget)
            budget -= words_in(text)
        lines.append(f"- {text} [{n}]")
    return lines
