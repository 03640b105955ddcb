"""The answer's words when no LLM writes them: quoted units, or a plain refusal.

The engine decides *whether* to answer (retrieval, course codes); this module writes what
the answer says (`Reply`): the extractive composer's units under a lead that says when the quotes are in the
other language or a newer notice comes first, or a "not in the materials" in the
question's language that points at the nearest source.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from courserag.answers.extractive import Composition, compose, render
from courserag.answers.extractive.read import ReadingAnswerer
from courserag.answers.extractive.recency import say_date
from courserag.answers.focus import about_item, source_of
from courserag.courses.codes import CodeCheck, own_codes
from courserag.courses.directory import Course
from courserag.courses.facts import person_names
from courserag.i18n.locators import say_locator
from courserag.i18n.messages import Notice
from courserag.lang.script import script_of
from courserag.results import Retrieval


@dataclass(frozen=True)
class Reply:
    """What an answer says: its text, whether it refuses, how it was written, and for a
    refusal the sources offered as places to look. The path that answered (engine/router.py)
    assembles the `Answer` from it once."""

    text: str
    refused: bool = False
    mode: str = "extractive"
    suggestions: tuple[dict, ...] = ()


def write_extractive(
    retrieval: Retrieval,
    codes: CodeCheck,
    course: Course,
    similarity: Callable,
    word_vectors: Callable,
    passage_similarity: Callable | None = None,
    reading: ReadingAnswerer | None = None,
) -> Reply:
    """Quote the units that answer the question, or refuse and point at the nearest source.
    Given `reading` (the trained reader with its calibration), its spans choose (read.py);
    else the extractive composer does."""
    query = retrieval.query
    if reading is not None:
        composition = reading.compose(query, retrieval.items, similarity, codes.foreign)
    else:
        composition = compose_answer(retrieval, codes, course, similarity, word_vectors, passage_similarity)
    focused = _on_focus(query.reply_language, composition, retrieval) if retrieval.focus else None
    if focused:
        return Reply(focused)
    if composition.refused:
        if composition.reason == "missing_code":
            return refuse(query.reply_language, "answer_code_not_found", code=", ".join(codes.foreign))
        return refuse(query.reply_language, "answer_not_found", nearest=_item(retrieval, composition.nearest))
    return Reply(render(composition, _lead(query.reply_language, composition)))


def compose_answer(
    retrieval: Retrieval,
    codes: CodeCheck,
    course: Course,
    similarity: Callable,
    word_vectors: Callable,
    passage_similarity: Callable | None = None,
    refusal_model="shipped",
    unit_model="shipped",
):
    """The composer's choice for this question (scripts/fit_refusal.py reads its features,
    scripts/fit_units.py compares its unit rankings). `passage_similarity` measures whole
    passages (compose.py)."""
    return compose(
        retrieval.query,
        retrieval.items,
        similarity,
        required=codes.foreign,
        ignore=tuple(own_codes(course)),
        word_vectors=word_vectors,
        people=person_names(course.instructors),
        refusal_model=refusal_model,
        unit_model=unit_model,
        passage_similarity=passage_similarity,
    )


def refuse(lang: str, message: str, nearest=None, **params) -> Reply:
    """A plain "not found" (or why not) in `lang`, the question's language; no citations,
    and the nearest related source offered as a place to look, not as an answer."""
    text = Notice(message, params).text(lang)
    suggestions: tuple[dict, ...] = ()
    if nearest is not None:
        chunk = nearest.hit.chunk
        place = say_locator(chunk.locator, lang)  # "第 9 张幻灯片", not "slide 9", in a Chinese reply
        text += "\n\n" + Notice("answer_look_at", {"source": chunk.source, "locator": place}).text(lang)
        suggestions = ({"source": chunk.source, "locator": chunk.locator, "origin": chunk.origin},)
    return Reply(text, refused=True, mode="refusal", suggestions=suggestions)


def _on_focus(lang: str, composition: Composition, retrieval: Retrieval) -> str:
    """The answer to "the second one": the chosen units about that item alone, else the item
    quoted from the source that holds it; "" when no source holds it (answered as usual)."""
    if not composition.refused:
        kept = tuple(c for c in composition.units if about_item(c.unit.text, retrieval.focus, retrieval.siblings))
        if kept:  # a composition of these units alone: nothing said about the dropped ones
            focused = Composition(units=kept, refused=False)
            return render(focused, _lead(lang, focused))
    n = source_of(retrieval.focus, retrieval.items)
    if n is None:
        return ""
    return _lead_for(lang, retrieval.focus) + f"\n- {retrieval.focus} [{n}]"


def _lead(lang: str, composition) -> str:
    """ "From the materials:" in `lang`, saying so when the quotes are in the other language."""
    return _lead_for(lang, " ".join(c.unit.text for c in composition.units), composition.newer)


def _lead_for(lang: str, quoted: str, newer=None) -> str:
    source = script_of(quoted)
    code = "answer_lead" if lang == source else f"answer_lead_{source}_materials"
    if newer:  # a later notice is quoted first: say so (extractive/recency.py)
        return Notice(code).text(lang) + "\n" + Notice("answer_newer_first", {"date": say_date(newer, lang)}).text(lang)
    return Notice(code).text(lang)


def _item(retrieval: Retrieval, n: int | None):
    return next((item for item in retrieval.items if item.n == n), None)
