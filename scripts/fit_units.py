#!/usr/bin/env python3
"""Fit the composer's unit ranking (courserag/answers/extractive/unit_model.py) on real questions.

    .venv/bin/python scripts/fit_units.py collect   # ask the questions, keep every scored unit's features
    .venv/bin/python scripts/fit_units.py fit       # fit, write unit_weights.json, report top-1 on held-out
    .venv/bin/python scripts/fit_units.py compare   # whole answers, hand-set order against the fitted, on val/held

`collect` needs the indexes `python -m bench.answers` keeps in EVAL_CACHE (default
/tmp/evalcache). For each answerable question it runs the product's retrieval and the
composer's unit scoring (the hand-set ranking, so the rows do not depend on the model being
fitted) and writes, for the best UNIT_ROWS units, the model's features and whether the unit's
text holds the reference answer (answer_eval.py's judge on the unit alone).

Questions (SOURCES), never a test split: SyllabusQA `train` (fit) and every sixteenth `val`
question (reported); for squad_v1_dev, cmrc2018_dev and the XQuAD dev sets the titles are split in two by
their order in the corpus (even places fit, odd places are held out and reported), and the
fitting questions leave out those bench.answers' reported run asks.

`fit` standardises the features and fits a conditional logistic model (numpy): per question,
a softmax over its units, fitted to put the most probability on the units that hold the
answer (L2-penalised), each question of a set weighing alike and each set alike; only
questions with at least one unit holding the answer are used, and a feature almost no
fitting unit has is left out (`unseen_features`). Only the order counts, so the
model has no bias. The
output is rounded to six digits, so a rerun on the same rows writes the same bytes. It
prints, per set and role, how often the top unit holds the answer under the hand-set sum
and under the model.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from inspect import signature
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
from fit_refusal import CACHE, REPORTED_MAX, SHARED, _answer_eval  # noqa: E402

ROWS_DIR = Path(os.environ.get("UNIT_ROWS_DIR", CACHE / "unit_features"))
UNIT_ROWS = 40  # the best units by the hand-set sum, per question
L2 = 1.0  # five-fold cross-validation on the fitting questions: top-1 0.69-0.70 for L2 0.3-100
MIN_SHARE = 0.01  # a feature nonzero in fewer of the fitting units is left out
STEPS, STEP_SIZE = 3000, 0.5  # gradient steps of the fit (it has converged well before)
# (set, scope, role, how many): SyllabusQA "fit" takes that many train questions, "val" every
# n-th val one; the Wikipedia sets' "fit" and "held" take that many of the even / odd titles.
SOURCES = (
    ("syllabusqa_dev", "course", "fit", 600),
    ("syllabusqa_dev", "course", "val", 16),
    ("cmrc2018_dev", "global", "fit", 60),
    ("cmrc2018_dev", "global", "held", 40),
    ("xquad_zh2en_dev", "global", "fit", 50),
    ("xquad_zh2en_dev", "global", "held", 30),
    ("xquad_en2zh_dev", "global", "fit", 50),
    ("xquad_en2zh_dev", "global", "held", 30),
    ("squad_v1_dev", "course", "fit", 150),
    ("squad_v1_dev", "course", "held", 60),
)
FIT_ROLE = "fit"


def spread(items: list, n: int) -> list:
    """`n` items evenly spread over `items` (all of them when fewer)."""
    return items[:: max(1, len(items) // n)][:n] if n else items


def questions_for(name: str, role: str, n: int, ae) -> list[dict]:
    """The answerable questions of one source (see the module docstring), deterministic."""
    qs = [json.loads(line) for line in open(SHARED / name / "queries.jsonl", encoding="utf-8")]
    qs = [q for q in qs if q.get("answerable") is not False]
    if name == "syllabusqa_dev":
        qs = [q for q in qs if q.get("answer_spans") or q.get("answers") or q.get("answer")]
        if role == "val":
            return [q for q in qs if q.get("split") == "val"][::n]
        return spread([q for q in qs if q.get("split") == "train"], n)
    titles = list(dict.fromkeys(json.loads(line)["title"] for line in open(SHARED / name / "corpus.jsonl")))
    side = {t: i % 2 for i, t in enumerate(titles)}
    if role == "held":
        return spread([q for q in qs if side[q["title"]] == 1], n)
    reported = {q["qid"] for q in ae.pick(qs, REPORTED_MAX)}
    return spread([q for q in qs if side[q["title"]] == 0 and q["qid"] not in reported], n)


def collect(args) -> int:
    ae = _answer_eval()
    from courserag.config.logs import configure_logging

    configure_logging(40, 40)
    ROWS_DIR.mkdir(parents=True, exist_ok=True)
    wanted = args.sets.split(",") if args.sets else None
    for name in dict.fromkeys(name for name, *_ in SOURCES if not wanted or name in wanted):
        _collect_set(name, ae)
    return 0


def _collect_set(name: str, ae) -> None:
    from courserag.answers.extractive.compose import candidates
    from courserag.config.settings import Settings
    from courserag.courses.codes import check_codes, own_codes
    from courserag.courses.facts import person_names
    from courserag.engine.facade import RagEngine

    out = open(ROWS_DIR / f"{name}.jsonl", "w", encoding="utf-8")
    for _, scope, role, n in [s for s in SOURCES if s[0] == name]:
        work = CACHE / f"{name}-{scope}"
        if not (work / "course_directory.yaml").is_file():
            print(f"skip {name}: no index in {work} (run python -m bench.answers --sets {name})", file=sys.stderr)
            continue
        os.environ.update(
            COURSE_DIRECTORY=str(work / "course_directory.yaml"), DATA_DIR=str(work / "data"), HF_HUB_OFFLINE="1"
        )
        os.environ.setdefault("MODEL_CACHE_DIR", str(CACHE / "models"))
        settings = Settings.from_env()
        engine = RagEngine.from_settings(settings)
        titles = list(dict.fromkeys(json.loads(line)["title"] for line in open(SHARED / name / "corpus.jsonl")))
        cid = {t: (f"c{i:03d}" if scope == "course" else "all") for i, t in enumerate(titles)}
        qs = questions_for(name, role, n, ae)
        started = time.time()
        for q in qs:
            course = engine.course(cid[q["title"]])
            retrieval = engine.retrieve(course.id, q["question"])
            if not retrieval.items:
                continue
            codes = check_codes(retrieval.query.text, course, engine.directory)

            similarity = engine.parts.unit_similarity(retrieval.query)

            ranked = candidates(
                retrieval.query,
                retrieval.items,
                similarity,
                person_names(course.instructors),
                tuple(own_codes(course)) + tuple(codes.foreign),
                engine.embedder.word_vectors,
                unit_model=None,
            )
            verdicts = [ae.judge(q, " ".join(ae.words(c.unit.text))) for c in ranked[:UNIT_ROWS]]
            if None in verdicts:
                continue  # a question answer_eval does not score
            units = [
                {"f": {k: (None if v is None else round(v, 5)) for k, v in c.features.items()}, "holds": bool(v)}
                for c, v in zip(ranked, verdicts)
            ]
            row = {"set": name, "role": role, "qid": q["qid"], "title": q["title"], "units": units}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
        print(f"{name} {role}: {len(qs)} questions in {time.time() - started:.0f}s", file=sys.stderr)
    out.close()


def load_rows(folder: Path = ROWS_DIR) -> list[dict]:
    """Every collected row of `folder`'s *.jsonl files, file by file in name order."""
    return [r for path in sorted(folder.glob("*.jsonl")) for r in map(json.loads, open(path, encoding="utf-8"))]


def fit_and_save(rows: list[dict], items: str, model_type, features: tuple[str, ...], out: Path):
    """Fit a choice model on the fitting rows some item of which holds the answer (`items`:
    the key of a row's scored items, each {"f": features, "holds": bool}), write it to
    `out` and return it (fit_units.py: units; fit_passages.py: runs)."""
    fit_rows = [r for r in rows if r["role"] == FIT_ROLE and any(x["holds"] for x in r[items])]
    choice = fit_choice_model([(r["set"], [(x["f"], x["holds"]) for x in r[items]]) for r in fit_rows], features)
    model = model_type(features, choice.mean, choice.scale, choice.coef, 0.0)
    save_choice_model(model, out, len(fit_rows), choice, items)
    return model


def fit(args) -> int:
    """Both shipped models: with the token match, and without it (VECTORS_WEIGHTS_FILE, for
    an embedder without token states); `--out F` writes them to F and F's `_vectors` twin."""
    from courserag.answers.extractive.unit_model import (
        FEATURES,
        TOKEN_FEATURES,
        VECTORS_WEIGHTS_FILE,
        WEIGHTS_FILE,
        UnitModel,
    )

    rows = load_rows()
    out = args.out or WEIGHTS_FILE
    vectors_out = out.with_name(f"{out.stem}_vectors{out.suffix}") if args.out else VECTORS_WEIGHTS_FILE
    report(rows, fit_and_save(rows, "units", UnitModel, FEATURES, out))
    without = tuple(f for f in FEATURES if f not in TOKEN_FEATURES)
    report(rows, fit_and_save(rows, "units", UnitModel, without, vectors_out))
    return 0


def save_choice_model(model, out: Path, questions: int, choice: "ChoiceModel", items: str) -> None:
    """Write the weights file and say what it was fitted on, its weights largest first."""
    out.write_text(json.dumps(model.to_dict(), indent=1) + "\n", encoding="utf-8")
    print(
        f"wrote {out} from {questions} questions, {choice.items} {items}; left out: {', '.join(choice.unseen) or 'none'}"
    )
    width = max(map(len, model.names))
    for f, c in sorted(zip(model.names, model.coef), key=lambda t: -abs(t[1])):
        print(f"  {f:{width}s} {c:+.3f}")


@dataclass(frozen=True)
class ChoiceModel:
    """A fitted conditional logistic model: the standardisation, the weights (rounded to six
    digits, so a rerun writes the same bytes), the features left out, the items fitted on."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    unseen: list[str]
    items: int


def fit_choice_model(questions: list[tuple[str, list[tuple[dict, bool]]]], features: tuple[str, ...]) -> ChoiceModel:
    """Fit which of a question's items (units, runs) hold the answer: `questions` are (set,
    [(features, holds)…]); each set weighs alike and each question of a set alike; a feature
    almost no item has is left out; only the order counts, so there is no bias."""
    per_set = defaultdict(int)
    for name, _ in questions:
        per_set[name] += 1
    x, y, groups, w = [], [], [], []
    for g, (name, items) in enumerate(questions):
        for f, holds in items:
            x.append([f[k] for k in features])
            y.append(float(holds))
            groups.append(g)
        w.append(1.0 / per_set[name])
    x, y, groups, w = np.array(x), np.array(y), np.array(groups), np.array(w)
    w *= len(w) / w.sum()
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    z = (x - mean) / scale
    unseen = unseen_features(x, features)
    z[:, [features.index(f) for f in unseen]] = 0.0
    coef = _fit_choice(z, y, groups, w, L2)
    return ChoiceModel(tuple(mean.round(6)), tuple(scale.round(6)), tuple(coef.round(6)), unseen, len(y))


def unseen_features(x: np.ndarray, names: tuple[str, ...], min_share: float = MIN_SHARE) -> list[str]:
    """The features (columns of x) nonzero in fewer than `min_share` of the fitting units.
    Such a feature (a table row: the fitting material has next to no tables) cannot be
    weighed, and standardising it would turn its rare 1 into a z of ~50 that outweighs every
    other feature where it does occur: it is left out (weight 0)."""
    return [name for name, share in zip(names, (x != 0).mean(axis=0)) if share < min_share]


def _fit_choice(z: np.ndarray, y: np.ndarray, groups: np.ndarray, w: np.ndarray, l2: float) -> np.ndarray:
    """A conditional (per-question) logistic model: p(unit) = softmax over the question's units
    of coef · z, fitted to put the most probability on the units that hold the answer (the
    weighted log of that mass, L2-penalised), by plain gradient steps from zero: deterministic."""
    beta = np.zeros(z.shape[1])
    counts = np.bincount(groups)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    for _ in range(STEPS):
        s = z @ beta
        s = s - np.repeat(np.maximum.reduceat(s, starts), counts)
        e = np.exp(s)
        p_all = e / np.repeat(np.add.reduceat(e, starts), counts)
        ep = e * y
        p_pos = ep / np.repeat(np.add.reduceat(ep, starts), counts)
        gradient = ((p_all - p_pos) * np.repeat(w, counts)) @ z / len(w) + l2 * beta / len(w)
        beta -= STEP_SIZE * gradient
    return beta


def report(rows: list[dict], model) -> None:
    """Top-1 holds the answer, among questions where some scored unit holds it: the hand-set
    order (the rows' order) against the model's."""
    by = defaultdict(list)
    for r in rows:
        if any(u["holds"] for u in r["units"]):
            by[(r["set"], r["role"])].append(r)
    for (name, role), group in sorted(by.items()):
        hand = sum(r["units"][0]["holds"] for r in group) / len(group)
        fitted = sum(max(r["units"], key=lambda u: model.logit(u["f"]))["holds"] for r in group) / len(group)
        print(f"{name:16s} {role:4s} n={len(group):4d}  top-1 holds: hand {hand:.3f}  fitted {fitted:.3f}")


def compare(args) -> int:
    """The whole extractive answer (retrieval, refusal, choice, shape) on the reported
    questions (SyllabusQA val, with its "no answer" ones; the held-out titles), with the
    hand-set unit order and with the fitted one, scored as answer_eval does."""
    ae = _answer_eval()
    from courserag.answers.extractive import render

    try:  # an older checkout (the "before" of a comparison) has no unit model
        from courserag.answers.extractive.unit_model import load_unit_model
    except ImportError:
        load_unit_model = lambda: None  # noqa: E731
    from courserag.answers.wording import _lead, compose_answer
    from courserag.config.logs import configure_logging
    from courserag.config.settings import Settings
    from courserag.courses.codes import check_codes
    from courserag.engine.facade import RagEngine
    from courserag.lang.script import script_of

    configure_logging(40, 40)
    fitted = load_unit_model()
    wanted = args.sets.split(",") if args.sets else None
    for name, scope, role, n in SOURCES:
        if role == FIT_ROLE or (wanted and name not in wanted):
            continue
        work = CACHE / f"{name}-{scope}"
        os.environ.update(
            COURSE_DIRECTORY=str(work / "course_directory.yaml"), DATA_DIR=str(work / "data"), HF_HUB_OFFLINE="1"
        )
        os.environ.setdefault("MODEL_CACHE_DIR", str(CACHE / "models"))
        settings = Settings.from_env()
        engine = RagEngine.from_settings(settings)
        titles = list(dict.fromkeys(json.loads(line)["title"] for line in open(SHARED / name / "corpus.jsonl")))
        cid = {t: (f"c{i:03d}" if scope == "course" else "all") for i, t in enumerate(titles)}
        qs = questions_for(name, role, n, ae)
        if name == "syllabusqa_dev":  # its "no answer" questions too, every n-th of val
            every = [json.loads(line) for line in open(SHARED / name / "queries.jsonl", encoding="utf-8")]
            qs += [q for q in every if q.get("split") == "val" and q.get("answerable") is False][::n]
        tally = {label: defaultdict(list) for label in ("hand", "fitted")}
        for q in qs:
            course = engine.course(cid[q["title"]])
            retrieval = engine.retrieve(course.id, q["question"])
            codes = check_codes(retrieval.query.text, course, engine.directory)
            answerable = q.get("answerable") is not False
            cited = " ".join(ae.words(" ".join(item.text for item in retrieval.items)))
            for label, model in (("hand", None), ("fitted", fitted)):
                t = tally[label]
                refused, text = codes.about_another_course or not retrieval.items, ""
                if not refused:
                    similarity = engine.parts.unit_similarity(retrieval.query)

                    said = compose_answer(
                        retrieval,
                        codes,
                        course,
                        similarity,
                        engine.embedder.word_vectors,
                        **({"unit_model": model} if "unit_model" in signature(compose_answer).parameters else {}),
                    )
                    refused = said.refused
                    text = "" if refused else render(said, _lead(script_of(q["question"]), said))
                if not answerable:
                    t["refuse_unans"].append(refused)
                    continue
                verdict = ae.judge(q, ae.window(text)) if not refused else False
                if ae.judge(q, cited) is None:
                    continue
                t["correct"].append(bool(verdict))
                t["evidence"].append(bool(ae.judge(q, cited)))
                t["false_refuse"].append(refused)
                t["gate_refused"].append(not retrieval.items)  # refused by retrieval, before the composer
                t["top_chunk"].append(bool(not refused and ae.judge(q, ae.window(retrieval.items[0].text))))
                if not refused:
                    t["words"].append(len(ae.words(text)))
        for label, t in tally.items():
            cells = " ".join(f"{k}={sum(v) / len(v):.3f}" for k, v in t.items() if k != "words" and v)
            words = sorted(t["words"])
            print(
                f"{name} {role} {label}: n={len(t['correct'])} {cells} words={words[len(words) // 2] if words else '-'}",
                flush=True,
            )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("collect", "fit", "compare"))
    parser.add_argument("--sets", help="collect, compare: only these sets (comma-separated)")
    parser.add_argument("--out", type=Path, help="fit: write the weights here (default: the shipped file)")
    args = parser.parse_args()
    return {"collect": collect, "fit": fit, "compare": compare}[args.step](args)


if __name__ == "__main__":
    sys.exit(main())
