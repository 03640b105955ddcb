"""Catalog questions, answered from the official catalog.

Credits, prerequisites, sections, rooms and programs of any course in the catalog are
official data (courserag/catalog/): they are answered exactly and cited to their rows. For
what the workspace's own syllabus may also state (prerequisites, credits, description) the
materials' answer follows the catalog's, renumbered after it, with a note when they disagree.

A question about one course may be a note's or the materials' to answer in the catalog's
words ("In which room is the capstone showcase held?", "Where is the CSC3100 midterm review
held?"): the catalog's answer then competes with them in retrieval (catalog/evidence.py).
About the workspace's own course left unnamed, it answers only when one of its sentences
answers best (retriever._offered_best); about a course the question names, the official
record, unless a passage answers better and speaks of something the catalog's answer does
not (retriever._offered_outdone); so too for several courses named at once and for a program.
A question about a code the catalog lacks is the materials' when they answer it.
"""

from __future__ import annotations

import time
from typing import Iterator

from courserag.catalog.answers import CatalogReply, answer_question
from courserag.catalog.codes import titles_in
from courserag.catalog.evidence import answer_passages
from courserag.catalog.intents import VECTOR_MODEL, IntentReader, intent_model
from courserag.catalog.load import CatalogSource
from courserag.catalog.model import Catalog, CatalogCourse
from courserag.catalog.questions import MERGED_INTENTS
from courserag.catalog.route import disagrees, fact_items, materials_part, record_of, renumber, shift_markers
from courserag.courses.codes import own_codes
from courserag.courses.directory import Course
from courserag.embedders import get_embedder, model_in
from courserag.engine.materials_path import MaterialsPath
from courserag.engine.parts import EngineParts
from courserag.engine.requests import Question
from courserag.i18n.messages import Notice, render
from courserag.results import Answer, Retrieval
from courserag.retrieval.followup import looks_like_followup


def _titled_like_workspace(targets, course: Course, workspace: CatalogCourse | None, catalog: Catalog) -> bool:
    """Whether a course the question names by title is one the workspace's own name names
    too, other than the workspace's catalog course ("Operating Systems" asked in "OS101
    Operating Systems", which the catalog does not list): the workspace's course is meant,
    and its materials answer. Any other title names its catalog course, from any workspace."""
    named = {found.code for found, _ in titles_in(course.name, catalog)}
    if workspace is not None:
        named.discard(workspace.code)
    return any(t.how == "title" and t.course.code in named for t in targets)


def _own_unknown_code(targets, course: Course) -> bool:
    """Whether a code the catalog lacks is the workspace's own: its materials answer or
    refuse it, as without a catalog. Any other unknown code is the catalog's "not in the
    catalog", from any workspace."""
    return any(t.course is None and t.typed in own_codes(course) for t in targets)


def _contested(reply: CatalogReply) -> bool:
    """Whether the catalog's answer competes with the materials and the notes: it states facts
    about the courses or the program asked about (a note may use the catalog's words: "room",
    "credits", "学分", or name the course: "the CSC3100 midterm review", "the BSc Computer
    Science orientation"). Every answer the catalog gives does."""
    asked = reply.question
    return (
        asked is not None
        and bool(reply.facts)
        and not reply.refused
        and (any(t.course is not None for t in asked.targets) or asked.program is not None)
    )


def _unknown_only(reply: CatalogReply) -> bool:
    """Whether the catalog's reply is its refusal of codes it does not list: the materials
    or the notes may still know the course ("STAT 111" in another institution's syllabus)."""
    return reply.refused and reply.question is not None and all(t.course is None for t in reply.question.targets)


def intent_reader(parts: EngineParts) -> IntentReader:
    """The catalog's intent model with the E5 that gives its question vectors: the engine's
    own (alone or in its ensemble), or E5 loaded beside another configured model."""
    e5 = model_in(parts.embedder, VECTOR_MODEL)
    if e5 is None:
        _, backend, cache, threads = parts.settings.embedder_args()
        e5 = get_embedder(VECTOR_MODEL, backend, cache, threads)
    return IntentReader(intent_model(), e5.embed_query)


class CatalogPath:
    """Decides whether the catalog answers a question, and streams that answer; `materials`
    is the path that answers from the materials, which the catalog's answer may quote after
    its own."""

    def __init__(self, parts: EngineParts, source: CatalogSource, materials: MaterialsPath):
        self.parts = parts
        self.source = source
        self.materials = materials

    def reply(self, question: Question) -> CatalogReply | None:
        """The catalog's reply, or None when the question is not a catalog question (or
        is a follow-up, or asks the learner's notes only)."""
        course = self.parts.directory.get(question.course_id)
        catalog = self.source.catalog
        if catalog is None or question.scope == "notes" or (question.history and looks_like_followup(question.text)):
            return None
        workspace = catalog.by_workspace(question.course_id) or next(
            (catalog.course(code) for code in sorted(own_codes(course)) if catalog.course(code)), None
        )
        reply = answer_question(
            question.text, catalog, self.parts.settings.catalog_date(), workspace, intent_reader(self.parts)
        )
        if reply is None:
            return None
        asked = reply.question
        if question.history and asked is not None and asked.own_course:
            return None  # "and who teaches it?" after other turns: "it" is theirs to say
        if asked is not None and _titled_like_workspace(asked.targets, course, workspace, catalog):
            return None
        if reply.refused and _own_unknown_code(asked.targets, course):
            return None
        return reply

    def noted(self, answer: Answer) -> Answer:
        """The answer, saying among its notices (`ask --json` `warnings`) that the catalog
        folder failed its checks, and whether the last good catalog is still in use."""
        error = self.source.error
        if error is None or not error.problems:
            return answer
        code = "catalog_failed_kept" if self.source.catalog is not None else "catalog_failed_none"
        notice = Notice(
            code, {"folder": str(self.source.folder), "count": len(error.problems), "first": str(error.problems[0])}
        )
        return answer.with_notices([notice])

    def stream(self, reply: CatalogReply, question: Question, started: float) -> Iterator[str | Answer]:
        """The catalog's answer; for a question about the workspace's own course left unnamed,
        only when one of its sentences answers best among the materials and the notes, and
        otherwise the materials' answer from that same retrieval."""
        retrieval = None
        if _unknown_only(reply) and question.scope != "notes":
            # The materials know the code, or the catalog's "not in the catalog" (never "the
            # materials say nothing about X").
            yield from self._materials_or_catalog(reply, question, started, None)
            return
        if _contested(reply):
            today = self.parts.settings.catalog_date()
            retrieval = self.materials.retrieve(question, answer_passages(reply, self.source.catalog, today))
            if reply.question.own_course and not retrieval.offered_best:
                # Unless one of the catalog's sentences answers best and reaches the ranker's
                # gate; an off-topic question the catalog misread is then refused, as without
                # a catalog.
                yield from self.materials.stream(question, started, retrieval)
                return
            if not reply.question.own_course and retrieval.offered_outdone:
                # A named course's official record yields only to a passage that answers better
                # and speaks of something asked that the catalog's answer does not mention.
                yield from self._materials_or_catalog(reply, question, started, retrieval)
                return
        yield from self._answer(reply, question, started, retrieval)

    def _materials_or_catalog(
        self, reply: CatalogReply, question: Question, started: float, retrieval: Retrieval | None
    ) -> Iterator[Answer]:
        """The materials' answer when they answer, else the catalog's own reply."""
        material = next(u for u in self.materials.stream(question, started, retrieval) if isinstance(u, Answer))
        if not material.refused:
            yield material
        else:
            yield from self._answer(reply, question, started, retrieval)

    def _answer(
        self, reply: CatalogReply, question: Question, started: float, retrieval: Retrieval | None
    ) -> Iterator[str | Answer]:
        """The catalog's answer; for what the course's own syllabus may also state, followed
        by the materials' answer (renumbered after the catalog's sources), from `retrieval`
        when the question was retrieved for already."""
        catalog = self.source.catalog
        items = fact_items(catalog, reply.facts)
        text, cited, notices = reply.text, items, []
        asked = reply.question
        own = (
            asked is not None
            and len(asked.targets) == 1
            and asked.targets[0].course is not None
            and asked.targets[0].course.workspace == question.course_id
        )
        if not reply.refused and own and set(asked.intents) <= MERGED_INTENTS and question.scope != "notes":
            material = None
            head = reply.text + "\n\n" + render("cat_materials_say", None, asked.lang) + "\n"
            for update in self.materials.stream(question, started, retrieval):
                if isinstance(update, Answer):
                    material = update
                else:
                    yield head + shift_markers(update, len(items))
            if material is not None:
                # What the retrieval beside the catalog met (a course store down, the local copy
                # answering, the model failing) is said whether or not the materials answered
                # (issue 40: a refused materials answer took its warnings with it).
                notices = [n for i, n in enumerate(material.notices) if n not in material.notices[:i]]
            if material is not None and not material.refused:
                quoted = shift_markers(material.answer, len(items))
                note = (
                    "\n\n" + render("cat_disagree", None, asked.lang)
                    if disagrees(reply, catalog, material.answer)
                    else ""
                )
                text = reply.text + "\n\n" + materials_part(quoted, asked.lang) + note  # each source said once
                cited = items + renumber(material.items, len(items))
        elapsed = (time.perf_counter() - started) * 1000
        yield Answer(
            question.text,
            text,
            reply.refused,
            cited,
            notices,
            timings_ms={
                "retrieval": retrieval.retrieval_ms if retrieval else 0.0,
                "answer": elapsed,
                "total": elapsed,
            },
            mode="catalog",
            query=question.text,
            course_id=question.course_id,
            catalog_records={item.n: record_of(catalog, fact) for item, fact in zip(items, reply.facts)},
        )
