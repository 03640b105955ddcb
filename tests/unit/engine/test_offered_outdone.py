"""When a passage the materials or the notes hold takes a named course's question from the
catalog's answer offered beside it (retriever._offered_outdone): it must be more relevant than
every offered passage, reach the ranker's gate, and hold a word of the question that none of
the offered passages holds."""

from __future__ import annotations

import pytest

from courserag.engine.retriever import _offered_outdone
from courserag.records import Chunk, ScoredChunk
from courserag.retrieval.ranking import HybridRanker, RankQuery

CATALOG = "Whether, when and where this course (CSC3100 Data Structures) is offered this term: Tuesdays, SCI-201."
NOTE = "The CSC3100 midterm review session is held in room Q-12 on Friday."
SYLLABUS = "Course code: CSC3100. Title: Data Structures. Term: Fall 2026."


def _hit(text: str, relevance: float, identifier: float = 1.0, origin: str = "course") -> ScoredChunk:
    return ScoredChunk(Chunk.make(text, "f.md", "p1", origin), identifier=identifier, relevance=relevance)


@pytest.mark.parametrize(
    "tokens, offered, others, outdone",
    [
        # the note is more relevant and speaks of the review, which the catalog does not
        (("csc3100", "midterm", "review", "held"), 0.70, [(NOTE, 0.90, 1.0)], True),
        # as relevant, or less: the catalog's answer stands
        (("csc3100", "midterm", "review", "held"), 0.90, [(NOTE, 0.90, 1.0)], False),
        # more relevant, but every word of the question it holds the catalog's answer holds too
        (("csc3100", "term"), 0.617, [(SYLLABUS, 0.619, 1.0)], False),
        # a word the catalog lacks, but below the gate and without the code
        (("midterm", "review"), 0.10, [(NOTE, 0.20, 0.0)], False),
        # the code spelt otherwise ("MAT-2040": mat, 2040) is not a word the catalog lacks
        (("take", "after", "mat", "2040"), 0.70, [("MAT-2040 with grade C or above.", 0.75, 1.0)], False),
    ],
)
def test_only_a_better_passage_that_says_more_of_what_is_asked_outdoes_the_catalog(tokens, offered, others, outdone):
    offered_hit = _hit(CATALOG, offered)
    ranked = [offered_hit] + [_hit(text, relevance, identifier) for text, relevance, identifier in others]
    query = RankQuery(tokens, frozenset({"MAT2040"}) if "mat" in tokens else frozenset(), False)
    assert _offered_outdone(HybridRanker(), ranked, {offered_hit.chunk.id}, query) is outdone


def test_nothing_offered_or_nothing_else_is_never_outdone():
    hit = _hit(NOTE, 0.9)
    query = RankQuery(("midterm",), frozenset(), False)
    assert not _offered_outdone(HybridRanker(), [hit], set(), query)
    assert not _offered_outdone(HybridRanker(), [hit], {hit.chunk.id}, query)
