#!/usr/bin/env python3
"""Fit the composer's answer-or-refuse model (courserag/answers/extractive/refusal.py) on real questions.

    .venv/bin/python scripts/fit_refusal.py collect   # ask the fitting questions, keep their features
    .venv/bin/python scripts/fit_refusal.py fit       # fit, choose the operating point, write the weights

`collect` needs the indexes that `python -m bench.answers` keeps in EVAL_CACHE (default
/tmp/evalcache; one answer_eval --work folder per set and scope). For each question it runs
the product's own retrieval and composer (with the hand-set rules deciding, so the features
do not depend on the model being fitted) and writes the decision features, whether the
question is answerable and whether the cited texts hold its answer (answer_eval's judge).

Questions used: SyllabusQA's `train` split (every "no answer" question, the negatives, and an
even spread of the others) to fit; its `val` split to choose the one operating point; and of
each Wikipedia set (all answerable) only questions that `bench.answers`' reported run does
not ask (answer_eval's own --max selection is left out), to fit. No test split is read.

`fit` standardises the features, fits an L2-regularised logistic regression (numpy, Newton
steps), weighting each source so SyllabusQA and the Wikipedia sets count alike, and picks
the threshold on val: the one that refuses the most "no answer" questions while at most
FALSE_REFUSAL_CAP of val's answerable ones are refused.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "eval"
CACHE = Path(os.environ.get("EVAL_CACHE", "/tmp/evalcache"))
FEATURES_DIR = CACHE / "refusal_features"  # one <set>.jsonl per set
FALSE_REFUSAL_CAP = 0.08  # the target on SyllabusQA val
L2 = 1.0
# (set, scope, role, how many): role "fit" or "val"; for the Wikipedia sets, how many of the
# questions left out of the reported run are asked.
SOURCES = (
    ("syllabusqa_dev", "course", "fit", 100),  # per question type; every "no answer" question
    ("syllabusqa_dev", "course", "val", 0),
    ("squad_v1_dev", "course", "fit", 150),
    ("cmrc2018_dev", "global", "fit", 150),
    ("xquad_zh2en_dev", "global", "fit", 150),
    ("xquad_en2zh_dev", "global", "fit", 150),
)
REPORTED_MAX = 300  # bench.answers asks answer_eval --max 300 of each Wikipedia set


def _answer_eval():
    spec = importlib.util.spec_from_file_location("answer_eval", SHARED / "answer_eval.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def questions_for(name: str, role: str, n: int, ae) -> list[dict]:
    """The questions of one source (see the module docstring), deterministic."""
    qs = [json.loads(line) for line in open(SHARED / name / "queries.jsonl", encoding="utf-8")]
    if name == "syllabusqa_dev":
        split = [q for q in qs if q.get("split") == ("train" if role == "fit" else "val")]
        if role == "val":
            return split
        by_type = defaultdict(list)
        for q in split:
            by_type[q["question_type"]].append(q)
        out = []
        for kind, group in by_type.items():
            out += group if kind == "no answer" else group[:: max(1, len(group) // n)][:n]
        return out
    reported = {q["qid"] for q in ae.pick(qs, REPORTED_MAX)}
    rest = [q for q in qs if q["qid"] not in reported]
    return rest[:: max(1, len(rest) // n)][:n]


def collect(args) -> int:
    ae = _answer_eval()
    from courserag.answers.wording import compose_answer
    from courserag.courses.codes import check_codes
    from courserag.engine.facade import RagEngine
    from courserag.config.logs import configure_logging
    from courserag.config.settings import Settings

    configure_logging(40, 40)
    FEATURES_DIR.mkdir(parents=True, exist_ok=True)
    wanted = args.sets.split(",") if args.sets else None
    for name in dict.fromkeys(name for name, *_ in SOURCES if not wanted or name in wanted):
        _collect_set(name, ae, compose_answer, check_codes, RagEngine, Settings)
    return 0


def _collect_set(name, ae, compose_answer, check_codes, RagEngine, Settings) -> None:
    from courserag.answers.wording import _lead
    from courserag.answers.extractive import render
    from courserag.answers.extractive.refusal import RefusalModel

    global ALWAYS_ANSWER
    ALWAYS_ANSWER = RefusalModel((), (), (), (), 0.0, 0.0)  # p >= 0: every question answered
    out = open(FEATURES_DIR / f"{name}.jsonl", "w", encoding="utf-8")
    for _, scope, role, n in [s for s in SOURCES if s[0] == name]:
        work = CACHE / f"{name}-{scope}"
        if not (work / "course_directory.yaml").is_file():
            print(f"skip {name}: no index in {work} (run python -m bench.answers --sets {name} first)", file=sys.stderr)
            continue
        os.environ.update(COURSE_DIRECTORY=str(work / "course_directory.yaml"), DATA_DIR=str(work / "data"),
                          HF_HUB_OFFLINE="1")
        os.environ.setdefault("MODEL_CACHE_DIR", str(CACHE / "models"))
        settings = Settings.from_env()
        engine = RagEngine.from_settings(settings)
        corpus_titles = list(dict.fromkeys(json.loads(line)["title"] for line in open(SHARED / name / "corpus.jsonl", encoding="utf-8")))
        cid = {t: (f"c{i:03d}" if scope == "course" else "all") for i, t in enumerate(corpus_titles)}
        qs = questions_for(name, role, n, ae)
        started = time.time()
        for q in qs:
            course = engine.course(cid[q["title"]])
            retrieval = engine.retrieve(course.id, q["question"])
            codes = check_codes(retrieval.query, course, engine.directory)
            cited = " ".join(item.text for item in retrieval.items)
            row = {"set": name, "role": role, "qid": q["qid"], "kind": q.get("question_type") or "answerable",
                   "answerable": q.get("answerable") is not False,
                   "evidence": ae.judge(q, " ".join(ae.words(cited))) if q.get("answerable") is not False else None}
            if codes.about_another_course or not retrieval.items:
                row["refused_by"] = "codes" if codes.about_another_course else "retrieval"
            else:
                memory = {}

                def similarity(texts, retrieval=retrieval, memory=memory):  # the unit rows reuse the composer's
                    key = tuple(texts)
                    if key not in memory:
                        vectors = engine.embedder.embed_passages_for(texts, retrieval.across_languages, settings.embedding_batch_size)
                        memory[key] = vectors @ retrieval.vector
                    return memory[key]

                composition = compose_answer(q["question"], retrieval, codes, course, similarity,
                                             engine.embedder.word_vectors, refusal_model=None)
                row.update(features=dict(composition.features), rule_reason=composition.reason,
                           refused_by=None if not composition.refused else "rules" if composition.features else "fixed")
                # what would be said if the answer were not refused: scored the way answer_eval does
                said = compose_answer(q["question"], retrieval, codes, course, similarity, engine.embedder.word_vectors,
                                      refusal_model=ALWAYS_ANSWER)
                if not said.refused:
                    text = render(said, _lead(q["question"], said))
                    row["words"] = len(ae.words(text))
                    if q.get("answerable") is not False:
                        row["correct_if_answered"] = ae.judge(q, ae.window(text))
                        row["top_chunk"] = ae.judge(q, ae.window(retrieval.items[0].text))
                if q.get("answerable") is not False:
                    row["units"] = _unit_rows(q, retrieval, codes, course, similarity, engine, ae)
                    row["answer_units"] = [[c.n, c.unit.position] for c in said.units]
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
        out.flush()
        print(f"{name} {role}: {len(qs)} questions in {time.time() - started:.0f}s", file=sys.stderr)
    out.close()


UNIT_ROWS = 40  # the best units by the composer's score, per question


def _unit_rows(q, retrieval, codes, course, similarity, engine, ae) -> list[dict]:
    """The top units of one answerable question: the composer's own numbers for each and
    whether its text holds the answer (answer_eval's judge on the unit alone)."""
    from courserag.answers.wording import _ask
    from courserag.courses.codes import own_codes
    from courserag.courses.facts import person_names
    from courserag.answers.extractive.compose import candidates

    ask = _ask(q["question"], retrieval.query)
    ranked = candidates(retrieval.query, retrieval.items, ask, similarity, person_names(course.instructors),
                        retrieval.across_languages, retrieval.floor, tuple(own_codes(course)) + tuple(codes.foreign),
                        engine.embedder.word_vectors)
    needs = ask.needs
    return [{"n": c.n, "position": c.unit.position, "kind": c.unit.kind, "score": round(c.score, 4),
             "margin": round(c.margin, 4), "coverage": round(c.coverage, 4),
             "needs_met": sum(1 for need in needs if need & c.kinds) / len(needs) if needs else 0.0,
             "rule": "rule" in c.kinds, "words": len(ae.words(c.unit.text)),
             "holds": bool(ae.judge(q, " ".join(ae.words(c.unit.text))))} for c in ranked[:UNIT_ROWS]]


def _fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = L2, steps: int = 30) -> np.ndarray:
    """Weighted L2 logistic regression by Newton steps; x has a leading column of ones
    (the bias is not penalised)."""
    beta = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ beta, -30, 30)))
        gradient = x.T @ (w * (p - y)) + penalty * beta
        hessian = (x * (w * p * (1 - p))[:, None]).T @ x + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return beta


def operating_point(p_answerable: np.ndarray, p_unanswerable: np.ndarray, cap: float = FALSE_REFUSAL_CAP) -> float:
    """The highest threshold (most refusals of "no answer") that refuses at most `cap` of the
    answerable questions. Answer when p >= threshold."""
    best = 0.0
    for t in np.unique(np.concatenate([p_answerable, p_unanswerable])):
        if (p_answerable < t).mean() <= cap:
            best = max(best, float(t))
    return best


def fit(args) -> int:
    from courserag.answers.extractive.refusal import FEATURES, WEIGHTS_FILE, RefusalModel

    rows = [json.loads(line) for path in sorted(FEATURES_DIR.glob("*.jsonl")) for line in open(path, encoding="utf-8")]
    usable = [r for r in rows if r.get("features")]
    fit_rows = [r for r in usable if r["role"] == "fit"]
    val_rows = [r for r in usable if r["role"] == "val"]
    x = np.array([[r["features"][f] for f in FEATURES] for r in fit_rows], dtype=float)
    y = np.array([r["answerable"] for r in fit_rows], dtype=float)
    # each source weighs as much as the others; within SyllabusQA both classes weigh alike
    groups = defaultdict(list)
    for i, r in enumerate(fit_rows):
        groups[(r["set"], r["answerable"])].append(i)
    w = np.zeros(len(fit_rows))
    for (name, answerable), idx in groups.items():
        share = 0.5 if name == "syllabusqa_dev" else 1.0
        w[idx] = share / len(idx)
    w *= len(fit_rows) / w.sum()
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    beta = _fit_logistic(z, y, w)
    model = RefusalModel(FEATURES, tuple(mean.round(6)), tuple(scale.round(6)), tuple(beta[1:].round(6)),
                         round(float(beta[0]), 6), 0.5)
    prob = lambda rs: np.array([model.probability(r["features"]) for r in rs])  # noqa: E731
    p_val = prob(val_rows)
    answerable = np.array([r["answerable"] for r in val_rows])
    # Questions retrieval already refuses count as refused whatever the model says.
    pre_refused = [r for r in rows if r["role"] == "val" and not r.get("features")]
    n_ans = answerable.sum() + sum(r["answerable"] for r in pre_refused)
    pre_ans = sum(r["answerable"] for r in pre_refused)
    cap = max(0.0, (FALSE_REFUSAL_CAP * n_ans - pre_ans) / max(1, answerable.sum()))
    threshold = operating_point(p_val[answerable], p_val[~answerable], cap)
    model = RefusalModel(**{**model.__dict__, "threshold": round(threshold, 6)})
    WEIGHTS_FILE.write_text(json.dumps(model.to_dict(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {WEIGHTS_FILE.relative_to(ROOT)}: threshold {threshold:.3f}")
    for f, c in sorted(zip(FEATURES, model.coef), key=lambda t: -abs(t[1])):
        print(f"  {f:16s} {c:+.3f}")
    report(rows, model)
    return 0


def report(rows: list[dict], model) -> None:
    """By source and role, the rules' decisions against the model's: false refusals, "no
    answer" refused, and correct as answer_eval scores it (retrieval's refusals count as refusals)."""
    by = defaultdict(list)
    for r in rows:
        by[(r["set"], r["role"])].append(r)
    for (name, role), group in sorted(by.items()):
        cells = []
        for label, refused in (("rules", lambda r: r["refused_by"] is not None),
                               ("model", lambda r: r["refused_by"] in ("codes", "retrieval", "fixed")
                                or (bool(r.get("features")) and not model.answers(r["features"])))):
            ans = [r for r in group if r["answerable"]]
            una = [r for r in group if not r["answerable"]]
            scored = [r for r in ans if r.get("evidence") is not None]
            correct = sum(1 for r in scored if not refused(r) and r.get("correct_if_answered")) / max(1, len(scored))
            cell = f"{label}: correct {correct:.3f} false_refuse {sum(map(refused, ans)) / max(1, len(ans)):.3f}"
            if una:
                cell += f" refuse_unans {sum(map(refused, una)) / len(una):.3f}"
            cells.append(cell)
        print(f"{name:16s} {role:4s} n={len(group):4d}  " + "  |  ".join(cells))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("collect", "fit"))
    parser.add_argument("--sets", help="collect: only these sets (comma-separated)")
    args = parser.parse_args()
    return collect(args) if args.step == "collect" else fit(args)


if __name__ == "__main__":
    sys.exit(main())
