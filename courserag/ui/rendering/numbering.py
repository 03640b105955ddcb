"""The source numbers a learner sees: the sources an answer cites are [1], [2] … in the order
its text first marks them, and those it only consulted follow. The answerer numbers every
source it was given, so an answer drawn from its second source alone used to start at [2],
with [1] folded under "also consulted". Only what is shown changes: the logs, the feedback
records and `ask --json` keep the answerer's numbers."""

from __future__ import annotations

from typing import Sequence

from courserag.answers.cited import cited_numbers, renumber, split_cited


def display_numbers(text: str, citations: Sequence[dict]) -> tuple[str, list[dict]]:
    """(text, citations) renumbered for display; unchanged when nothing moves (the text marks
    no source, or already marks them 1, 2, … in order)."""
    citations = list(citations)
    cited, consulted = split_cited(citations, text)
    first = {n: i for i, n in enumerate(cited_numbers(text))}
    ranked = sorted(cited, key=lambda c: first.get(c.get("n"), len(first))) + consulted  # a stable sort
    mapping = {c["n"]: new for new, c in enumerate(ranked, start=1) if isinstance(c.get("n"), int)}
    if all(old == new for old, new in mapping.items()):
        return text, citations
    return renumber(text, mapping), [dict(c, n=mapping.get(c.get("n"), c.get("n"))) for c in ranked]
