#!/usr/bin/env python3
"""Fit the composer's passage choice (courserag/answers/extractive/passages.py) on real questions.

    .venv/bin/python scripts/fit_passages.py collect   # ask the questions, keep every candidate run's features
    .venv/bin/python scripts/fit_passages.py fit       # fit, write passage_weights.json and
                                                       # reread_weights.json, report on held-out

`collect` needs the indexes `python -m bench.answers` keeps in EVAL_CACHE (default
/tmp/evalcache). For each answerable question it runs the product's retrieval and the
composer's unit ranking (the shipped unit model, as an answer does), builds every candidate
run of consecutive units within the passage budget, and writes each run's features and
whether its text holds the reference answer inside answer_eval's window (its `judge`); the
PARAMS.reread_runs runs the shipped passage model rates highest are also embedded whole and
their reread.py features kept.

Questions (SOURCES), never a test split: SyllabusQA's whole `train` split (fit) and `val`
split (held); for SQuAD, CMRC 2018 and the two XQuAD sets the titles are split in two by
their order in the corpus, as scripts/fit_units.py splits them (even places fit, odd places
held). `fit` fits the conditional logistic model of fit_units.py (a softmax over a question's
runs, each set weighing alike, L2 1.0, deterministic) on the "fit" rows of questions some run
answers, writes the weights rounded to six digits (a rerun writes the same bytes), and prints
how often the chosen run holds the answer, per set and role, beside the run that holds the
most unit-model probability (the model's own baseline) and the best any run could do. The
reread model is fitted the same way on the runs read whole.

`collect` chooses the runs to read whole with the shipped passage model, so the two files
belong together: after a change to the unit model or to retrieval, run collect, fit, collect,
fit (the second fit writes the same passage weights, and reread weights fitted on the ratings
those weights give).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
from fit_refusal import CACHE, SHARED, _answer_eval  # noqa: E402
from fit_units import fit_and_save, load_rows  # noqa: E402

ROWS_DIR = Path(os.environ.get("PASSAGE_ROWS_DIR", CACHE / "passage_features"))
# (set, scope, role): every answerable question of that role (see the module docstring).
SOURCES = (
    ("syllabusqa_dev", "course", "fit"),
    ("syllabusqa_dev", "course", "held"),
    ("squad_v1_dev", "course", "fit"),
    ("squad_v1_dev", "course", "held"),
    ("cmrc2018_dev", "global", "fit"),
    ("cmrc2018_dev", "global", "held"),
    ("xquad_zh2en_dev", "global", "fit"),
    ("xquad_zh2en_dev", "global", "held"),
    ("xquad_en2zh_dev", "global", "fit"),
    ("xquad_en2zh_dev", "global", "held"),
)
FIT_ROLE = "fit"
# Each Wikipedia set's fitting titles hold more questions than SyllabusQA needs to weigh
# alike; a spread of this many keeps the collect short.
MAX_QUESTIONS = 800


def questions_for(name: str, role: str) -> list[dict]:
    """The answerable questions of one source, deterministic."""
    qs = [json.loads(line) for line in open(SHARED / name / "queries.jsonl", encoding="utf-8")]
    qs = [q for q in qs if q.get("answerable") is not False]
    if name == "syllabusqa_dev":
        return [q for q in qs if q.get("split") == ("train" if role == FIT_ROLE else "val")]
    titles = list(dict.fromkeys(json.loads(line)["title"] for line in open(SHARED / name / "corpus.jsonl")))
    side = {t: i % 2 for i, t in enumerate(titles)}
    qs = [q for q in qs if side[q["title"]] == (0 if role == FIT_ROLE else 1)]
    return qs[:: max(1, len(qs) // MAX_QUESTIONS)][:MAX_QUESTIONS]


def ranked_units(engine, course, question: str):
    """What the composer reads for one question: the retrieval, what it asks for, and every
    unit of the cited sources ranked by the shipped unit model (None when nothing is cited)."""
    from courserag.answers.extractive.compose import candidates
    from courserag.courses.codes import check_codes, own_codes
    from courserag.courses.facts import person_names

    retrieval = engine.retrieve(course.id, question)
    if not retrieval.items:
        return None
    codes = check_codes(retrieval.query.text, course, engine.directory)
    ask = retrieval.query.ask
    ranked = candidates(
        retrieval.query,
        retrieval.items,
        engine.parts.unit_similarity(retrieval.query),
        person_names(course.instructors),
        tuple(own_codes(course)) + tuple(codes.foreign),
        engine.embedder.word_vectors,
        unit_model="shipped",
    )
    return (retrieval, ask, ranked) if ranked else None


def each_question(sources, wanted: set[str] | None):
    """(set, role, question, retrieval, ask, ranked units) for every scored question of the
    sources whose retrieval cites something, set by set; progress on stderr."""
    from bench.replay import engine_for

    ae = _answer_eval()
    for name, scope, role in sources:
        if wanted and name not in wanted:
            continue
        engine, _ = engine_for(name, scope)
        titles = list(dict.fromkeys(json.loads(line)["title"] for line in open(SHARED / name / "corpus.jsonl")))
        cid = {t: (f"c{i:03d}" if scope == "course" else "all") for i, t in enumerate(titles)}
        started, kept = time.time(), 0
        for q in questions_for(name, role):
            if ae.judge(q, " ".join(ae.words(" ".join(q.get("answer_spans") or q.get("answers") or [])))) is None:
                continue  # a question answer_eval does not score
            found = ranked_units(engine, engine.course(cid[q["title"]]), q["question"])
            if found:
                kept += 1
                yield (name, role, q, *found, engine.parts.passage_similarity(found[0].query))
        print(f"{name} {role}: {kept} questions in {time.time() - started:.0f}s", file=sys.stderr)


def collect(args) -> int:
    ae = _answer_eval()
    from courserag.answers.extractive.passages import (
        budget_for,
        likeliest_runs,
        load_passage_model,
        passage_features,
        passages,
    )
    from courserag.answers.extractive.reread import reread_features, run_text

    ROWS_DIR.mkdir(parents=True, exist_ok=True)
    wanted = set(args.sets.split(",")) if args.sets else None
    files = {}
    shipped = load_passage_model()
    for name, role, q, retrieval, ask, ranked, whole in each_question(SOURCES, wanted):
        if name not in files:
            files[name] = open(ROWS_DIR / f"{name}.jsonl", "w", encoding="utf-8")
        runs = passages(ranked, lambda c: budget_for(c.unit.text, ask.long_answer))
        features = passage_features(runs, ranked, retrieval.query.across)
        holds = [bool(ae.judge(q, ae.window(run_text(run)))) for run in runs]
        rows = [
            {
                "f": {k: round(v, 5) for k, v in f.items()},
                "holds": held,
                "at": [r.units[0].n, r.units[0].unit.position, len(r.units)],
            }
            for r, f, held in zip(runs, features, holds)
        ]
        # The likeliest runs by the shipped passage model, read again whole (reread.py), the
        # reach aside: it only saves the product the runs the model would seldom choose.
        rated = likeliest_runs([(shipped.logit(f), run) for f, run in zip(features, runs)], math.inf)
        again = reread_features([r for r, _ in rated], [run for _, run in rated], whole, retrieval.query.floor)
        held_by = {id(run): held for run, held in zip(runs, holds)}
        reread = [
            {"f": {k: (None if v is None else round(v, 5)) for k, v in f.items()}, "holds": held_by[id(run)]}
            for f, (_, run) in zip(again, rated)
        ]
        line = {"set": name, "role": role, "qid": q["qid"], "runs": rows, "reread": reread}
        files[name].write(json.dumps(line) + "\n")
    for f in files.values():
        f.close()
    return 0


def fit(args) -> int:
    """Both shipped models: the passage choice, and the second look at its likeliest runs
    read whole (reread.py); `--out F` writes them to F and F's `_reread` twin."""
    from courserag.answers.extractive import reread
    from courserag.answers.extractive.passages import FEATURES, WEIGHTS_FILE, PassageModel

    rows = load_rows(ROWS_DIR)
    out = args.out or WEIGHTS_FILE
    reread_out = out.with_name(f"{out.stem}_reread{out.suffix}") if args.out else reread.WEIGHTS_FILE
    report(rows, fit_and_save(rows, "runs", PassageModel, FEATURES, out))
    report_reread(rows, fit_and_save(rows, "reread", reread.RereadModel, reread.FEATURES, reread_out))
    return 0


def report_reread(rows: list[dict], model) -> None:
    """How often the chosen run holds the answer among the likeliest runs read whole: the
    passage model's first choice, the reread model's, and the best any of them could do."""
    by = defaultdict(list)
    for r in rows:
        by[(r["set"], r["role"])].append(r["reread"])
    for (name, role), group in sorted(by.items()):
        first = sum(runs[0]["holds"] for runs in group) / len(group)
        chosen = sum(max(runs, key=lambda run: model.logit(run["f"]))["holds"] for runs in group) / len(group)
        best = sum(any(run["holds"] for run in runs) for runs in group) / len(group)
        print(
            f"{name:16s} {role:4s} n={len(group):4d}  read whole: first {first:.3f}  chosen {chosen:.3f}  any {best:.3f}"
        )


def report(rows: list[dict], model) -> None:
    """How often the chosen run holds the answer, over every question with a run (the
    whole-answer figures, refusals included, are bench.replay's)."""
    by = defaultdict(list)
    for r in rows:
        by[(r["set"], r["role"])].append(r)
    for (name, role), group in sorted(by.items()):

        def share(pick) -> float:
            return sum(pick(r["runs"])["holds"] for r in group) / len(group)

        mass = share(lambda runs: max(runs, key=lambda run: (run["f"]["mass"], -run["f"]["units"])))
        fitted = share(lambda runs: max(runs, key=lambda run: model.logit(run["f"])))
        best = sum(any(run["holds"] for run in r["runs"]) for r in group) / len(group)
        words = np.median(
            [math.expm1(max(r["runs"], key=lambda run: model.logit(run["f"]))["f"]["log_words"]) for r in group]
        )
        print(
            f"{name:16s} {role:4s} n={len(group):4d}  chosen run holds: most mass {mass:.3f}  "
            f"fitted {fitted:.3f}  any run {best:.3f}  words {words:.0f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("collect", "fit"))
    parser.add_argument("--sets", help="collect: only these sets (comma-separated)")
    parser.add_argument("--out", type=Path, help="fit: write the weights here (default: the shipped file)")
    args = parser.parse_args()
    return {"collect": collect, "fit": fit}[args.step](args)


if __name__ == "__main__":
    sys.exit(main())
