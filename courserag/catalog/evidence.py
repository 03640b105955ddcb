"""The catalog's answer as passages that compete with the materials and the learner's notes.

A question about the workspace's own course left unnamed ("which room is it in?", "这门课几个
学分？") may be the catalog's to answer, or a note's that uses the same words ("In which room
is the capstone showcase held?"). The catalog's answer is offered to retrieval beside the
course's passages and the notes, and it answers only when one of its passages answers best
(engine/catalog_path.py, engine/retriever.py).

Each passage is one sentence of the catalog's answer, led by what it answers in a learner's
words, in the question's language ("The courses you can take after this course (CSC3100
Data Structures), which need it as a prerequisite: …"), the way courses/facts.py writes the
directory's facts. Measured on 45 own-course questions, a row as the source panel shows it
("2027SP CSC3100 L01 (lecture) · Mon;Wed 13:30-14:50 · …") answered best for none of the 18
that only the catalog answers ("Which sections run next term?"), the sentence after its
lead for all 18 (docs/DECISIONS.md). The sources cited stay the rows.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from courserag.answers.cited import _MARKER
from courserag.catalog.answers import CatalogReply, write_reply, year_words
from courserag.catalog.model import Catalog
from courserag.catalog.questions import CatalogQuestion
from courserag.catalog.route import CATALOG_DOC_TYPE, catalog_source
from courserag.i18n.messages import render
from courserag.records import Chunk


def term_words(q: CatalogQuestion, catalog: Catalog, today: date) -> str:
    """The one term a question asks about, as a learner says it ("next term (Spring 2027)"):
    the catalog's sentence names the term only. "" for several terms or none."""
    if len(q.terms) != 1 or q.all_terms:
        return ""
    term = q.terms[0]
    code = (
        "cat_lead_this_term"
        if term == catalog.current_term(today)
        else "cat_lead_next_term"
        if term == catalog.next_term(today)
        else "cat_lead_term"
    )
    return render(code, {"term": term.name(q.lang)}, q.lang)


def answer_passages(reply: CatalogReply, catalog: Catalog, today: date) -> list[Chunk]:
    """Each sentence of the catalog's answer that cites a record, without its markers and after
    its lead, cited to the first record it states: for each course asked about and each thing
    asked of it, or, for a program asked about alone, its years' courses."""
    q = reply.question
    known = [t for t in q.targets if t.course is not None]
    passages = []
    for target in known:
        course = target.course
        name = f"{course.code} {course.title(q.lang)}"
        for intent in q.intents:
            part = write_reply(replace(q, targets=(target,), intents=(intent,)), catalog)
            lead = render(f"cat_lead_{intent}", {"course": name, "term": term_words(q, catalog, today)}, q.lang)
            passages += _sentences(part, lead, catalog)
    if not known and q.program is not None:
        year = render("cat_lead_year", {"year": year_words(q.year, q.lang)}, q.lang) if q.year else ""
        lead = render("cat_lead_program_courses", {"program": q.program.name(q.lang), "year": year}, q.lang)
        passages += _sentences(write_reply(q, catalog), lead, catalog)
    return passages


def _sentences(part: CatalogReply, lead: str, catalog: Catalog) -> list[Chunk]:
    out = []
    for line in part.text.split("\n"):
        cited = [part.facts[int(n) - 1] for n in re.findall(r"\[(\d+)\]", line)]
        if cited:
            text = lead + " " + " ".join(_MARKER.sub("", line).split())
            source, locator = catalog_source(catalog, cited[0]), cited[0].locator
            out.append(Chunk.make(text, source, locator, "course", None, CATALOG_DOC_TYPE))
    return out
