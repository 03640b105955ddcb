"""The intent model's examples: the hand-written paraphrase set and templates over catalog rows.

eval/catalog_intents/paraphrases.jsonl holds groups of wordings of one meaning, each group in
the `fit` or the `heldout` half; fitting_extra.jsonl, fitting_none.jsonl and fitting_wording.jsonl more groups,
written for fitting by someone who had not read the held-out half; templates.yaml is filled with every course row (and program
row) of a catalog. `none` questions (about a course's own materials) have no intent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import yaml

from courserag.catalog.model import Catalog

SET_DIR = Path(__file__).resolve().parents[2] / "eval" / "catalog_intents"
PARAPHRASES = SET_DIR / "paraphrases.jsonl"
# More wordings, written for fitting only by someone who had not read the held-out half: all
# six intents and none, then questions of none alone (off-topic ones shaped like catalog
# questions, a named course's own materials, concepts in catalog words), then the wordings
# the issue lists (eligibility, co-requisites from either side, exclusions, "called now")
# and none that asks what the catalog does not hold (enrolment, pass rates, exam rooms).
FITTING_EXTRA = (
    SET_DIR / "fitting_extra.jsonl",
    SET_DIR / "fitting_none.jsonl",
    SET_DIR / "fitting_wording.jsonl",
)
TEMPLATES = SET_DIR / "templates.yaml"


@dataclass(frozen=True)
class Example:
    """A question and the intents it asks (() for none), with where it comes from."""

    question: str
    intents: tuple[str, ...]
    group: str  # paraphrase group, or the template it was filled from
    split: str  # fit, heldout or template
    lang: str = "en"
    code: str | None = None  # the course row a template was filled with
    program: str | None = None  # the program row a template was filled with


def paraphrases(path: Path = PARAPHRASES) -> list[Example]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [
        Example(r["question"], tuple(i for i in r["intents"] if i != "none"), r["group"], r["split"], r["lang"])
        for r in rows
    ]


def filled_templates(catalog: Catalog, path: Path = TEMPLATES, every: int = 1) -> list[Example]:
    """Each template filled with every `every`-th course row (and each program and year)."""
    table = yaml.safe_load(path.read_text(encoding="utf-8"))
    out: list[Example] = []
    courses = [catalog.courses[code] for code in sorted(catalog.courses)][::every]
    for intent, by_lang in table["course"].items():
        for lang, templates in by_lang.items():
            for n, template in enumerate(templates):
                for course in courses:
                    question = template.format(code=course.code, title_en=course.title_en, title_zh=course.title_zh)
                    asked = tuple(intent.split("+"))
                    out.append(Example(question, asked, f"{intent}-{lang}-{n}", "template", lang, code=course.code))
    for intent, by_lang in table["program"].items():
        for lang, templates in by_lang.items():
            for n, template in enumerate(templates):
                for program in sorted(catalog.programs.values(), key=lambda p: p.id):
                    years = sorted({r.year for r in catalog.requirements if r.program == program.id and r.year > 0})
                    for year in years[:: max(1, every)] or [1]:
                        question = template.format(program_en=program.name_en, program_zh=program.name_zh, year=year)
                        out.append(
                            Example(question, (intent,), f"{intent}-{lang}-{n}", "template", lang, program=program.id)
                        )
    return list(dict.fromkeys(out))
