"""Fit the catalog's intent model and report it.

    .venv/bin/python -m training.catalog_intents fit      # choose L2 by cross-validation, fit, write the weights
    .venv/bin/python -m training.catalog_intents report   # the shipped weights on the held-out half

Fitting data: the `fit` half of eval/catalog_intents/paraphrases.jsonl, fitting_extra.jsonl,
fitting_none.jsonl, fitting_wording.jsonl and templates.yaml filled with every third row of the sample
catalog. The L2 strength is
chosen by 5-fold cross-validation over the hand-written groups (templates always in the
training folds); the held-out half is only reported.
"""

from __future__ import annotations

import argparse
import json
import time
import zlib
from collections import defaultdict
from pathlib import Path

import numpy as np

from courserag.catalog.intents import INTENTS, NONE, VECTOR_MODEL, WEIGHTS_FILE, intent_model, masked
from courserag.catalog.load import load_catalog
from courserag.config.settings import Settings
from courserag.embedders import get_embedder
from training.catalog_intents.data import FITTING_EXTRA, Example, filled_templates, paraphrases
from training.catalog_intents.fit import FitSettings, accuracy, first_intent, fit, labels_of

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_CATALOG = ROOT / "catalog"
L2_GRID = (1e-5, 3e-5, 1e-4, 3e-4)
FOLDS = 5
SECONDARY_GRID = (0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)


def fitting_data() -> tuple[list[Example], list[Example], list[Example]]:
    """(hand-written fitting questions, templates over the sample catalog, held-out questions)."""
    rows = paraphrases()
    extra = [e for path in FITTING_EXTRA for e in paraphrases(path)]
    catalog = load_catalog(SAMPLE_CATALOG)
    return (
        [e for e in rows if e.split == "fit"] + extra,
        filled_templates(catalog, every=3),
        [e for e in rows if e.split == "heldout"],
    )


def question_vectors(examples: list[Example]) -> np.ndarray:
    """The E5 query vectors of the masked questions, as the product computes them."""
    model, backend, cache, threads = Settings().embedder_args()
    embedder = get_embedder(VECTOR_MODEL, backend, cache, threads)
    return np.asarray(embedder.embed_queries([masked(e.question) for e in examples], 64), dtype=np.float32)


def fold_of(example: Example) -> int:
    return zlib.crc32(example.group.encode()) % FOLDS


def cross_validated(fitting, fitting_vectors, templates, template_vectors, settings: FitSettings):
    """(first-intent accuracy, each question's probabilities) over the folds of the groups."""
    right, chances = 0.0, [None] * len(fitting)
    folds = np.array([fold_of(e) for e in fitting])
    for fold in range(FOLDS):
        train = [e for e, f in zip(fitting, folds) if f != fold] + templates
        model = fit(train, np.vstack([fitting_vectors[folds != fold], template_vectors]), settings)
        rows = np.flatnonzero(folds == fold)
        right += accuracy(model, [fitting[i] for i in rows], fitting_vectors[rows]) * len(rows)
        for i in rows:
            chances[i] = model.probabilities(fitting[i].question, fitting_vectors[i])
    return right / len(fitting), chances


def best_secondary(fitting: list[Example], chances: list[dict]) -> float:
    """The probability at which a second intent is asked too: the one under which the most
    fitting questions get exactly their intents (cross-validated; ties: the higher)."""

    def exact(threshold: float) -> int:
        hits = 0
        for example, chance in zip(fitting, chances):
            best = max(chance, key=chance.__getitem__)
            asked = {best} | {i for i in INTENTS if chance[i] >= threshold} if best != NONE else {NONE}
            hits += asked == set(labels_of(example))
        return hits

    return max(SECONDARY_GRID, key=lambda t: (exact(t), t))


def table(model, examples: list[Example], vectors: np.ndarray) -> list[str]:
    """Accuracy of the first intent, overall, by gold intent and by language."""
    groups: dict[str, list[int]] = defaultdict(list)
    for n, e in enumerate(examples):
        groups[f"intent {labels_of(e)[0]}"].append(n)
        groups[f"lang {e.lang}"].append(n)
    lines = [f"| all | {len(examples)} | {accuracy(model, examples, vectors):.3f} |"]
    for key, rows in sorted(groups.items()):
        lines.append(f"| {key} | {len(rows)} | {accuracy(model, [examples[i] for i in rows], vectors[rows]):.3f} |")
    return ["| part | questions | first intent right |", "| --- | ---: | ---: |", *lines]


def command_fit(out: Path) -> None:
    started = time.process_time()
    fitting, templates, heldout = fitting_data()
    fitting_vectors, template_vectors = question_vectors(fitting), question_vectors(templates)
    runs = {
        l2: cross_validated(fitting, fitting_vectors, templates, template_vectors, FitSettings(l2=l2)) for l2 in L2_GRID
    }
    for l2, (score, _) in runs.items():
        print(f"L2 {l2:g}: cross-validated {score:.3f}")
    best = max(L2_GRID, key=lambda l2: (runs[l2][0], l2))  # ties: the stronger regularisation
    secondary = best_secondary(fitting, runs[best][1])
    print(f"a second intent from probability {secondary:g}")
    settings = FitSettings(l2=best, secondary=secondary)
    model = fit(fitting + templates, np.vstack([fitting_vectors, template_vectors]), settings)
    out.write_text(json.dumps(model.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{len(fitting)} questions + {len(templates)} from templates; L2 {best:g}; {len(model.vocabulary)} words")
    print(f"wrote {out} in {time.process_time() - started:.0f} s CPU")
    print("\n".join(table(model, heldout, question_vectors(heldout))))


def command_report(weights: Path) -> None:
    _, _, heldout = fitting_data()
    model, vectors = intent_model(weights), question_vectors(heldout)
    print("\n".join(table(model, heldout, vectors)))
    for e, vector in zip(heldout, vectors):
        got = first_intent(model, e.question, vector)
        if got != labels_of(e)[0]:
            print(f"  {e.group} {e.question!r}: {got} (asked {labels_of(e)[0]})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.catalog_intents")
    parser.add_argument("command", choices=("fit", "report"))
    parser.add_argument("--weights", type=Path, default=WEIGHTS_FILE)
    args = parser.parse_args(argv)
    if args.command == "fit":
        command_fit(args.weights)
    else:
        command_report(args.weights)
    return 0
