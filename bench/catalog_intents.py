"""Catalog intent detection measured on eval/catalog_intents/paraphrases.jsonl.

    .venv/bin/python -m bench.catalog_intents

Prints the share of questions whose first predicted intent is their first gold intent,
overall, per split, per gold intent and per language, as `questions.detect` reads them with
the shipped intent model (courserag/catalog/intents.py). The cue words it replaced are
measured in eval/catalog_intents/README.md. A method is a function from the rows to one
predicted intent tuple per row, added to METHODS.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from functools import cache
from pathlib import Path

from courserag.catalog.intents import VECTOR_MODEL, IntentReader, intent_model
from courserag.catalog.load import load_catalog
from courserag.catalog.model import Catalog
from courserag.catalog.questions import detect
from courserag.config.settings import Settings
from courserag.embedders import get_embedder

ROOT = Path(__file__).resolve().parents[1]
SET = ROOT / "eval" / "catalog_intents" / "paraphrases.jsonl"
# Questions that ask two things of one course (a regression set, written beside the rule
# that splits them: questions.question_parts), asked without a workspace of the sample catalog.
TWO_PART = ROOT / "eval" / "catalog_intents" / "two_part.jsonl"
CATALOGS = {"sample": ROOT / "catalog", "harbour": ROOT / "tests" / "fixtures" / "catalog_harbour"}
TODAY = date(2026, 12, 1)  # Fall 2026 is the current term of both catalogs
INTENTS = ("credits", "prerequisites", "reverse", "sections", "program", "description", "none")


def load_rows(path: Path = SET) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@cache
def catalog(name: str) -> Catalog:
    return load_catalog(CATALOGS[name])


def model_predictions(rows: list[dict]) -> list[tuple[str, ...]]:
    """Today's detection: the intents `detect` finds, or ("none",) when it finds no catalog question."""
    _, backend, cache, threads = Settings().embedder_args()
    read_intents = IntentReader(intent_model(), get_embedder(VECTOR_MODEL, backend, cache, threads).embed_query)
    predictions = []
    for row in rows:
        cat = catalog(row["catalog"])
        workspace = cat.by_workspace(row["course"]) if row["catalog"] == "sample" and row["course"] else None
        question = detect(row["question"], cat, TODAY, workspace, read_intents)
        predictions.append(question.intents if question is not None else ("none",))
    return predictions


METHODS: dict[str, Callable[[list[dict]], list[tuple[str, ...]]]] = {"intent model": model_predictions}


def accuracy_table(rows: list[dict], predictions: dict[str, list[tuple[str, ...]]]) -> str:
    """A Markdown table: one line per slice of the rows, one column per method."""
    slices = [("all", lambda r: True)]
    slices += [(f"split {s}", lambda r, s=s: r["split"] == s) for s in ("fit", "heldout")]
    slices += [(f"intent {i}", lambda r, i=i: r["intents"][0] == i) for i in INTENTS]
    slices += [(f"lang {lang}", lambda r, lang=lang: r["lang"] == lang) for lang in ("en", "zh", "mixed")]
    names = list(predictions)
    lines = ["| slice | n | " + " | ".join(names) + " |", "| --- | ---: |" + " ---: |" * len(names)]
    for label, keep in slices:
        picked = [i for i, row in enumerate(rows) if keep(row)]
        cells = []
        for name in names:
            right = sum(predictions[name][i][:1] == tuple(rows[i]["intents"][:1]) for i in picked)
            cells.append(f"{right / len(picked):.3f}" if picked else "-")
        lines.append(f"| {label} | {len(picked)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def both_read(rows: list[dict], predictions: list[tuple[str, ...]]) -> str:
    """ "both intents read: n / N": the questions whose every gold intent `detect` found."""
    found = sum(set(row["intents"]) <= set(got) for row, got in zip(rows, predictions, strict=True))
    return f"two-part questions ({TWO_PART.name}), both intents read: {found} / {len(rows)}"


def main() -> None:
    rows = load_rows()
    print(accuracy_table(rows, {name: method(rows) for name, method in METHODS.items()}))
    two = [dict(row, catalog="sample", course=None) for row in load_rows(TWO_PART)]
    print(both_read(two, model_predictions(two)))


if __name__ == "__main__":
    main()
