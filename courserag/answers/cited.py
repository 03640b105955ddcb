"""Which of an answer's numbered sources its text actually cites.

An answer is given its sources as [1], [2] …; the LLM (or the extractive answerer) marks
what it used with those numbers. Sources it was given but never marked were consulted, not
cited: the UI lists them apart ("also consulted"), and feedback and "most-cited files" are
charged only to the cited ones, so a 👎 on an answer drawn from the learner's own notes is
not charged to a course file that merely came along.
"""

from __future__ import annotations

import re
from typing import Iterable

# [1] · [1, 2] · [1][2] · 【1】 · [1，2] · [1、2]
_MARKER = re.compile(r"[\[【]\s*(\d{1,3}(?:\s*[,，、]\s*\d{1,3})*)\s*[\]】]")


def cited_numbers(text: str) -> list[int]:
    """The source numbers `text` marks, in order of first mention, each once."""
    seen: list[int] = []
    for match in _MARKER.finditer(text or ""):
        for part in re.split(r"[,，、]", match.group(1)):
            number = int(part.strip())
            if number not in seen:
                seen.append(number)
    return seen


def split_cited(citations: Iterable[dict], text: str) -> tuple[list[dict], list[dict]]:
    """(cited, consulted): the citations the text marks and the rest, each in source order.

    An answer that marks none (an LLM that ignored the instruction) cites all of them:
    nothing says which ones it used, so none is hidden or left uncharged.
    """
    citations = list(citations)
    numbers = [n for n in cited_numbers(text) if any(c.get("n") == n for c in citations)]
    if not numbers:
        return citations, []
    return [c for c in citations if c.get("n") in numbers], [c for c in citations if c.get("n") not in numbers]


def renumber(text: str, mapping: dict[int, int]) -> str:
    """`text` with each marked source number n written as mapping[n] (others unchanged),
    keeping every marker's own brackets and separators."""

    def swap(match: re.Match) -> str:
        inner = re.sub(r"\d{1,3}", lambda d: str(mapping.get(int(d.group()), int(d.group()))), match.group(1))
        return match.group(0).replace(match.group(1), inner, 1)

    return _MARKER.sub(swap, text or "")
