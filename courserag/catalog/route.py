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
from courserag.catalog.codes import codes_in
from courserag.catalog.model import Catalog
from courserag.catalog.prereq import codes_of
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


def disagrees(reply: CatalogReply, catalog: Catalog, material_text: str) -> bool:
    """Whether the materials' answer states other credits or other prerequisite codes for
    the course than the catalog does (only what can be compared exactly)."""
    q = reply.question
    if q is None or not q.targets or q.targets[0].course is None:
        return False
    course = q.targets[0].course
    if "credits" in q.intents:
        stated = {float(n) for n in re.findall(r"(\d+(?:\.\d+)?)[\s-]*(?:credit|学分)", material_text, re.IGNORECASE)}
        if stated and course.credits not in stated:
            return True
    if "prerequisites" in q.intents and course.prerequisites is not None:
        named = {catalog.aliases.get(code, code) for code, _ in codes_in(material_text)} - {course.code}
        wanted = {catalog.aliases.get(code, code) for code in codes_of(course.prerequisites)}
        if named and named != wanted:
            return True
    return False
