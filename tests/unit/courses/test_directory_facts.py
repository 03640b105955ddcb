"""Course facts from the course directory (courserag/courses/facts.py): the passages, the
names without titles, how they join the candidates, and that they never take a material
passage's place. Pure functions; the engine-level tests are in tests/integration/test_engine.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from courserag.courses.directory import Course
from courserag.courses.facts import (
    DIRECTORY_SOURCE,
    directory_chunks,
    is_directory,
    keep_material,
    offer_directory,
    person_names,
)
from courserag.records import Chunk, ScoredChunk


def _course(
    language="en",
    instructors=("Dr. Ada Byron", "Prof. Alan Kay"),
    description="Compilers: parsing and code generation.",
):
    return Course("cmp4010", "CMP4010 Compilers", description, language, Path("/nowhere"), tuple(instructors))


def _hit(name: str, score: float, directory: bool = False, lexical: float = 0.0) -> ScoredChunk:
    source = DIRECTORY_SOURCE if directory else f"{name}.md"
    locator = f"course directory > {name.rstrip('2')}" if directory else "x"  # "f2": field f in the other language
    chunk = Chunk.make(name, source, locator, "course", "cmp4010", "directory" if directory else "md")
    return ScoredChunk(chunk, score=score, lexical=lexical)


@pytest.mark.parametrize(
    "language, first_line",
    [
        ("en", "The instructors who teach this course (CMP4010 Compilers) are Dr. Ada Byron and Prof. Alan Kay."),
        ("zh", "这门课（CMP4010 Compilers）的授课教师是Dr. Ada Byron、Prof. Alan Kay。"),
    ],
)
def test_each_field_is_a_citable_passage_in_both_languages_the_courses_first(language, first_line):
    chunks = directory_chunks(_course(language))
    assert [c.locator for c in chunks] == ["course directory > instructors"] * 2  # the description is not offered
    assert all(c.source == DIRECTORY_SOURCE and c.origin == "course" and c.course_id == "cmp4010" for c in chunks)
    assert chunks[0].text.split("\n")[1] == first_line
    assert len({c.id for c in chunks}) == 2
    title = "Instructors" if language == "en" else "授课教师"
    assert chunks[0].text.split("\n")[0] == f"cmp4010 > {title}"


@pytest.mark.parametrize(
    "instructors, description, fields",
    [
        ((), "About compilers.", set()),
        (("Dr. Ada Byron",), "About compilers.", {"course directory > instructors"}),
    ],
)
def test_an_empty_field_gives_no_passage(instructors, description, fields):
    assert {c.locator for c in directory_chunks(_course(instructors=instructors, description=description))} == fields


@pytest.mark.parametrize(
    "people, expected",
    [
        (["Dr. Elena Marsh"], ("Dr. Elena Marsh", "Elena Marsh")),
        (["李明华 教授", "陈思远 副教授"], ("李明华 教授", "李明华", "陈思远 副教授", "陈思远")),
        (["Alan Turing"], ("Alan Turing",)),
        (["Prof Kay"], ("Prof Kay", "Kay")),
    ],
)
def test_person_names_are_also_known_without_their_titles(people, expected):
    assert person_names(people) == expected


def test_offered_passages_join_both_lists_on_the_courses_lexical_scale():
    facts = directory_chunks(_course())
    material = [_hit("a", 0, lexical=8.0), _hit("b", 0, lexical=2.0)]
    vectors, lexicals = offer_directory(facts, [0.5] * 4, ["instructors", "teaches"], [], material)
    assert [h.chunk.id for h in vectors] == [c.id for c in facts]
    assert all(h.vector == 0.5 for h in vectors)
    offered = [h for h in lexicals if is_directory(h)]
    # the English instructors passage holds both words ("teaches" up to its stem); nothing else all
    assert max(h.lexical for h in offered) == pytest.approx(8.0)
    assert all(h.lexical <= 8.0 for h in offered)
    assert material == lexicals[:2]


@pytest.mark.parametrize(
    "tokens, material",
    [
        (["quantum", "chromodynamics"], [_hit("a", 0, lexical=3.0)]),  # no word in common
        (["instructors"], []),  # no file holds a word of the question: nor does the directory
    ],
)
def test_no_lexical_candidate_without_a_word_on_the_courses_scale(tokens, material):
    _, lexicals = offer_directory(directory_chunks(_course()), [0.1] * 4, tokens, [], material)
    assert lexicals == material


@pytest.mark.parametrize(
    "ranked, top_k, kept",
    [
        # a fact among the best is added, never in a passage's place
        ([("a", False), ("f", True), ("b", False), ("c", False)], 2, ["a", "f", "b"]),
        # a fact below the last kept passage is left out
        ([("a", False), ("b", False), ("f", True)], 2, ["a", "b"]),
        ([("f", True), ("g", True), ("a", False)], 1, ["f", "g", "a"]),
        # a field's passage in the other language adds nothing to the first
        ([("f", True), ("a", False), ("f2", True), ("b", False)], 2, ["f", "a", "b"]),
        ([("a", False), ("b", False), ("c", False)], 2, ["a", "b"]),
        ([], 3, []),
    ],
)
def test_directory_facts_never_crowd_out_material(ranked, top_k, kept):
    hits = [_hit(name, -i, directory) for i, (name, directory) in enumerate(ranked)]
    assert [h.chunk.text for h in keep_material(hits, top_k)] == kept
