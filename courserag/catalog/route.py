"""The catalog's reply as the engine's answer: numbered sources, merged with the materials.

A catalog fact becomes a source like a passage (`catalog/courses.csv`, "row 15 ·
CSC3100"), so the source panel and `ask --json` show it without a new path. For facts a
syllabus may also state (prerequisites, credits, description) of the workspace's own course,
the materials' answer follows the catalog's, renumbered after it, and a disagreement on
credits or prerequisite codes is said aloud (the catalog is the official record).
"""

from __future__ import annotations

import re
from pathlib import Path

from courserag.answers.cited import _MARKER
from courserag.catalog.answers import CatalogFact, CatalogReply
from courserag.catalog.codes import codes_in, fold_title
from courserag.catalog.model import Catalog
from courserag.catalog.prereq import codes_of
from courserag.catalog.questions import has_cue, words
from courserag.i18n.messages import render
from courserag.records import Chunk, ScoredChunk
from courserag.retrieval.packing import ContextItem

CATALOG_DOC_TYPE = "catalog"
CATALOG_STORE = "catalog"


def catalog_source(catalog: Catalog, fact: CatalogFact) -> str:
    """ "catalog/courses.csv": the folder's name and the file, as a citation's source."""
    return f"{Path(catalog.folder).name}/{fact.where.file}"


def fact_items(catalog: Catalog, facts: list[CatalogFact], first: int = 1) -> list[ContextItem]:
    items = []
    for n, fact in enumerate(facts, start=first):
        chunk = Chunk.make(fact.text, catalog_source(catalog, fact), fact.locator, "course", None, CATALOG_DOC_TYPE)
        items.append(
            ContextItem(n, ScoredChunk(chunk, score=1.0, store=CATALOG_STORE), fact.text, len(fact.text.split()))
        )
    return items


def record_of(catalog: Catalog, fact: CatalogFact) -> dict:
    """The `catalog` field a citation gets in `ask --json`: file, rows and record id."""
    return {"file": catalog_source(catalog, fact), "rows": list(fact.rows or (fact.where.row,)), "record": fact.record}


def shift_markers(text: str, by: int) -> str:
    """Source numbers moved up by `by`: "[1][2]" -> "[3][4]" when two catalog sources come first."""

    def move(match: re.Match) -> str:
        inner = re.sub(r"\d{1,3}", lambda m: str(int(m.group(0)) + by), match.group(1))
        return match.group(0).replace(match.group(1), inner)

    return _MARKER.sub(move, text)


def renumber(items: list[ContextItem], by: int) -> list[ContextItem]:
    return [ContextItem(item.n + by, item.hit, item.text, item.tokens) for item in items]


# What makes a line of the materials a rule for some students only ("ECE majors take it for 2
# credits", "ECE 专业学生…计 2 学分"): a program noun (words.yaml's program_nouns), or "<CODE> students".
_GROUP_STUDENTS = re.compile(r"\b[A-Z]{2,6}\s+students\b")


def program_specific(line: str) -> bool:
    """Whether a line of the materials states a rule for one program's students, not for the
    course as the catalog lists it."""
    return bool(_GROUP_STUDENTS.search(line)) or has_cue(fold_title(line), words()["program_nouns"])


def _names(catalog: Catalog, text: str, code: str) -> bool:
    """Whether `text` names the course `code`: by any of its codes or by its title."""
    course = catalog.course(code)
    titles = (course.title_en, course.title_zh) if course else ()
    folded = fold_title(text)
    return any(catalog.aliases.get(c, c) == code for c, _ in codes_in(text)) or any(
        t and fold_title(t) in folded for t in titles
    )


def disagrees(reply: CatalogReply, catalog: Catalog, material_text: str) -> bool:
    """Whether the materials' answer states other credits or other prerequisites for the
    course than the catalog does (only what can be compared exactly). Both must speak of the
    same thing: a rule for one program's students (program_specific) is no disagreement, and a
    prerequisite named by its title is named."""
    q = reply.question
    if q is None or not q.targets or q.targets[0].course is None:
        return False
    course = q.targets[0].course
    general = "\n".join(line for line in material_text.split("\n") if not program_specific(line))
    if "credits" in q.intents:
        stated = {float(n) for n in re.findall(r"(\d+(?:\.\d+)?)[\s-]*(?:credit|学分)", general, re.IGNORECASE)}
        if stated and course.credits not in stated:
            return True
    if "prerequisites" in q.intents and course.prerequisites is not None:
        named = {catalog.aliases.get(code, code) for code, _ in codes_in(general)} - {course.code}
        wanted = {catalog.aliases.get(code, code) for code in codes_of(course.prerequisites)}
        named |= {code for code in wanted if _names(catalog, general, code)}
        if named and named != wanted:
            return True
    return False


LEADS = ("answer_lead", "answer_lead_zh_materials", "answer_lead_en_materials")


def materials_part(text: str, lang: str) -> str:
    """The materials' answer under the catalog's, introduced once: "The course materials say:"
    in place of its own "From the materials:", or its own lead alone when that says more (the
    quotes are in the other language)."""
    head = render("cat_materials_say", None, lang)
    first, _, rest = text.partition("\n")
    if first.strip() == render("answer_lead", None, lang):
        return f"{head}\n{rest}"
    if first.strip() in {render(code, None, lang) for code in LEADS}:
        return text
    return f"{head}\n{text}"
