"""Every intent's templates, filled with every row of two catalogs, are read as that intent
(one of the two a template asks for both) about that row and answered with the row's own
value (issue 42: templates x rows 1.00)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from courserag.catalog.answers import write_reply
from courserag.catalog.load import load_catalog
from courserag.catalog.questions import detect
from training.catalog_intents.data import filled_templates

ROOT = Path(__file__).resolve().parents[3]
CATALOGS = {"sample": ROOT / "catalog", "harbour": ROOT / "tests" / "fixtures" / "catalog_harbour"}
TODAY = date(2026, 12, 1)


def _misread(name: str, read_intents) -> list[str]:
    catalog = load_catalog(CATALOGS[name])
    wrong = []
    for example in filled_templates(catalog):
        asked = detect(example.question, catalog, TODAY, None, read_intents)
        if asked is None or asked.intents[0] not in example.intents:
            wrong.append(f"{example.question!r}: read as {asked.intents if asked else None}")
        elif example.code is not None and [t.course.code for t in asked.targets if t.course] != [example.code]:
            wrong.append(f"{example.question!r}: about {[t.typed for t in asked.targets]}")
        elif example.program is not None and (asked.program is None or asked.program.id != example.program):
            wrong.append(f"{example.question!r}: program {asked.program}")
        elif "credits" in asked.intents:
            credits = catalog.courses[example.code].credits
            text = write_reply(asked, catalog).text
            if f"{credits:g}" not in text:
                wrong.append(f"{example.question!r}: answered {text!r}")
    return wrong


@pytest.mark.parametrize("name", sorted(CATALOGS))
def test_every_template_filled_with_every_row_is_read_as_its_intent_about_its_row(name, read_intents):
    assert _misread(name, read_intents) == []
