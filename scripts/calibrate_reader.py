#!/usr/bin/env python3
"""Fit how many of the reader's spans an answer quotes and when it refuses, on real questions,
as fit_refusal.py fits the composer's refusal, and write them into the reader's manifest.

    READER_WEIGHTS=W .venv/bin/python scripts/calibrate_reader.py collect   # ask, keep the rows
    READER_WEIGHTS=W .venv/bin/python scripts/calibrate_reader.py choose [--write]

`collect` asks fit_refusal.py's questions (SyllabusQA `train` for fitting, its whole `val`,
the Wikipedia sets' fitting questions and every fifth of their reported run, and the
off-topic pairs (OFF_TOPIC): questions asked in a course they are not about, to be refused) through the
product's own retrieval on the indexes `python -m bench.answers` keeps in EVAL_CACHE, reads the
retrieved sources with the reader told to answer everything (threshold 0; a question naming a course code no listed
course has reads only the sources naming it, as the product does), and keeps for each
question the reader's answerability probability, whether it is answerable, the sources and
every window's reading and each unit's E5 cosine with the question, as the product measures
it (so the quotes can be composed again), and whether the answer the
reader would give is correct (answer_eval's judge and window). A question that retrieval or
the course codes refuse first is kept as refused whatever the threshold.

`choose` first fits the quotes (read_calibration.py's `ReadParams`: how many spans, within
what margin of the best, up to how many words, and how much E5's cosine adds to a span's
score) on the fitting questions (role `fit`: SyllabusQA `train`, the
Wikipedia sets' questions outside their reported run): the grid point with the highest mean
correct over those sets whose median answer on each is no longer than the composer's
(COMPOSER_MEDIAN_WORDS, docs/EVALUATION.md: the issue asks for answers no longer than today's).
It fits the refusal next (read_calibration.py): a logistic fit of the head's probability, of
whether the question is asked across languages, of whether it is written in Chinese and of
E5's cosine with the best span's unit, on the fitting questions the reader
decides, each set and off-topic pair weighing alike as in fit_refusal.py. It then picks one
operating point on that fit's probability on SyllabusQA `val`: the highest threshold at which its
answerable questions refused stay within fit_refusal's FALSE_REFUSAL_BOUND (the issue's 0.08),
the point fit_refusal.py chooses the same way, and reports every role of every set at it:
"no answer" refused, false refusals, correct. `--write` stores them in the manifest beside
the weights (`calibration`: threshold, quotes, refusal, where they were fitted, their
figures); the weights' SHA-256 does not cover the manifest, so the file the product checks
stays the same.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
import fit_refusal  # noqa: E402  (its question selection, engines and operating point)

from bench.answers import CACHE, _env  # noqa: E402  (every set's run environment)
from courserag.answers.extractive.read_calibration import ReaderCalibration  # noqa: E402

ANSWER_ALL = ReaderCalibration(threshold=0.0)  # collect: every question the reader reads is answered

ROWS_DIR = Path(os.environ.get("READER_ROWS_DIR", CACHE / "reader_rows"))  # one <set>.jsonl per set
# The composer's median answer (answer_eval's words) on each set's reported run, docs/EVALUATION.md.
COMPOSER_MEDIAN_WORDS = {
    "syllabusqa_dev": 56,
    "squad_v1_dev": 56,
    "cmrc2018_dev": 99,
    "xquad_zh2en_dev": 63,
    "xquad_en2zh_dev": 108,
}
QUOTE_GRID = {
    "spans": (1, 2, 3, 4),
    "margin": (1.0, 2.0, 3.0, 5.0, 100.0),
    "words": (30, 40, 50, 60, 80),
    "similarity": (0.0, 50.0, 100.0, 200.0, 400.0),  # logits a unit of E5's cosine adds to a span's score
}


# The reader's questions: fit_refusal.py's, and XQuAD's Chinese set, whose questions are asked
# off topic below: a set that is fitted as a negative is fitted as a positive too, so the fit
# learns the situation rather than the set's kind of question.
SOURCES = fit_refusal.SOURCES + (
    ("xquad_zh_dev", "global", "val", 5),
    ("xquad_zh_dev", "global", "fit", 150),
)
# The reader's off-topic pairs: fit_refusal.py's, and Chinese questions in a Chinese course
# they are not about, fitted on. fit_refusal.py's Chinese pairs are reported only: their host
# is one course of every article of the set (global scope), reported ones included. These ask
# in one course of the host's fitting articles alone (scope FITTING, built by `fitting_host`),
# so the fit reads no article a reported question is scored on.
FITTING = "fitting"
OFF_TOPIC = fit_refusal.OFF_TOPIC + (
    ("xquad_zh_dev", "cmrc2018_dev", FITTING, "fit", 100),
    ("cmrc2018_dev", "xquad_zh_dev", FITTING, "fit", 100),
)


def _weights() -> Path:
    path = os.environ.get("READER_WEIGHTS")
    if not path:
        raise SystemExit("set READER_WEIGHTS to the reader's .safetensors")
    return Path(path)


def collect(args) -> int:
    from courserag.config.logs import configure_logging
    from courserag.reader.reader import Reader

    configure_logging(40, 40)
    ROWS_DIR.mkdir(parents=True, exist_ok=True)
    ae = fit_refusal._answer_eval()
    reader = Reader(_weights(), cache_dir=CACHE / "models")
    wanted = args.sets.split(",") if args.sets else None
    for name in dict.fromkeys(name for name, *_ in SOURCES if not wanted or name in wanted):
        with open(ROWS_DIR / f"{name}.jsonl", "w", encoding="utf-8") as out:
            for _, scope, role, n in [s for s in SOURCES if s[0] == name]:
                engine = fit_refusal._engine_for(name, scope)
                if engine is None:
                    continue
                ids = fit_refusal._course_ids(name, scope)
                questions = fit_refusal.questions_for(name, role, n, ae)
                started = time.time()
                for q in questions:
                    row = reader_row(q, name, role, engine, engine.course(ids[q["title"]]), reader, ae)
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
                    out.flush()
                print(f"{name} {role}: {len(questions)} questions in {time.time() - started:.0f}s", file=sys.stderr)
    if not wanted or "off_topic" in wanted:
        collect_off_topic(reader, ae)
    return 0


def collect_off_topic(reader, ae) -> None:
    """Questions asked in a course they are not about (OFF_TOPIC, in both languages and
    across them): every one must be refused."""
    with open(ROWS_DIR / "off_topic.jsonl", "w", encoding="utf-8") as out:
        for asked, host, scope, role, n in OFF_TOPIC:
            if scope == FITTING:
                fitting_host(host)
            engine = fit_refusal._engine_for(host, scope)
            if engine is None:
                continue
            courses = fit_refusal._host_courses(host, scope, role)
            started = time.time()
            for i, q in enumerate(fit_refusal._foreign_questions(asked, role, n)):
                course = engine.course(courses[i % len(courses)])
                q = {**q, "qid": f"{q['qid']}@{course.id}", "answerable": False}
                row = reader_row(q, "off_topic", role, engine, course, reader, ae)
                out.write(json.dumps({**row, "kind": fit_refusal._pair(asked, host)}, ensure_ascii=False) + "\n")
                out.flush()
            print(f"{asked} in {host} {role}: {n} questions in {time.time() - started:.0f}s", file=sys.stderr)


def fitting_set(name: str, out: Path) -> Path:
    """`name`'s fitting articles alone (fit_refusal's even-place titles) and their questions,
    as a set folder answer_eval reads."""
    titles = fit_refusal._titles(name, "fit")
    out.mkdir(parents=True, exist_ok=True)
    for part in ("corpus.jsonl", "queries.jsonl"):
        lines = (fit_refusal.SHARED / name / part).read_text(encoding="utf-8").splitlines()
        kept = [line for line in lines if line.strip() and json.loads(line)["title"] in titles]
        (out / part).write_text("".join(line + "\n" for line in kept), encoding="utf-8")
    return out


def fitting_host(name: str) -> None:
    """The index of one course of `name`'s fitting articles, built once into EVAL_CACHE the
    way answer_eval builds every set's (its one question is asked only to finish the build)."""
    import subprocess

    work = CACHE / f"{name}-{FITTING}"
    if (work / "course_directory.yaml").is_file():
        return
    subset = fitting_set(name, CACHE / "fitting-sets" / name)
    python = sys.executable
    command = [python, str(fit_refusal.SHARED / "answer_eval.py"), str(subset), "--scope", "global"]
    command += ["--work", str(work), "--max", "1", "--python", python]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=_env(CACHE, {}))
    if done.returncode:
        raise SystemExit(f"building {name}'s fitting articles failed: {(done.stderr or done.stdout)[-800:]}")


def reader_row(q: dict, name: str, role: str, engine, course, reader, ae) -> dict:
    """One question: the reader's answerability, its readings, and whether its answer would be
    correct."""
    from courserag.answers.extractive.read import compose_readings, naming, read_source
    from courserag.courses.codes import check_codes
    from courserag.embedders.groups import meaning_of

    retrieval = engine.retrieve(course.id, q["question"])
    codes = check_codes(retrieval.query.text, course, engine.directory)
    answerable = q.get("answerable") is not False
    row = {"set": name, "role": role, "qid": q["qid"], "kind": q.get("question_type") or "answerable"}
    row["answerable"] = answerable
    # answer_eval scores an answerable question only when it can (judge: None otherwise)
    row["scored"] = answerable and ae.judge(q, "") is not None
    items = naming(retrieval.items, codes.foreign)  # a code no listed course has: what names it (read.py)
    if codes.about_another_course or not items:
        row["refused_by"] = (
            "codes" if codes.about_another_course else "missing_code" if retrieval.items else "retrieval"
        )
        return row
    sources = [s for s in (read_source(item) for item in items) if s is not None]
    readings = reader.read(retrieval.query.text, [s.text for s in sources]) if sources else []
    row["gold"] = {key: q.get(key) for key in ("question", "answers", "answer_spans", "question_type")}
    row["wants_list"] = retrieval.query.ask.wants_list
    similarity = engine.parts.unit_similarity(retrieval.query)  # E5's cosines, as the product measures them
    row["sources"] = [
        {
            "n": s.item.n,
            "text": s.item.text,
            "doc_type": s.item.hit.chunk.doc_type,
            "locator": s.item.hit.chunk.locator,
            "meanings": [round(float(m), 5) for m in meaning_of(similarity([u.text for u in s.units]))],
        }
        for s in sources
    ]
    row["readings"] = [[r.passage, r.start, r.end, r.score, r.answerable] for r in readings]
    said = compose_readings(retrieval.query.text, sources, readings, row["wants_list"], ANSWER_ALL, kept_meanings(row))
    features = dict(said.features)
    row.update(refused_by=None, p=features.get("reader_answerable", 0.0), score=features.get("reader_score"))
    if said.refused:  # nothing to quote
        row["refused_by"] = said.reason
        return row
    row.update(answer_said(row, said, ae))
    return row


def answer_said(row: dict, said, ae) -> dict:
    """The answer's length and, for an answerable question, whether it is correct."""
    from courserag.answers.extractive import render
    from courserag.answers.wording import _lead
    from courserag.lang.script import script_of

    text = render(said, _lead(script_of(row["gold"]["question"]), said))
    # the refusal's language situation, read on the source the answer leads with
    features = dict(said.features)
    out = {
        "words": len(ae.words(text)),
        "across": bool(features["reader_across"]),
        "chinese": bool(features["reader_chinese"]),
        "cosine": features["reader_cosine"],
    }
    if row["answerable"]:
        out["correct_if_answered"] = ae.judge(row["gold"], ae.window(text))
    return out


def kept_sources(row: dict) -> list:
    """A row's sources rebuilt as the reader read them (read.py's ReadSource)."""
    from courserag.answers.extractive.read import read_source
    from courserag.records import Chunk, ScoredChunk
    from courserag.retrieval.packing import ContextItem

    return [
        read_source(
            ContextItem(
                s["n"],
                ScoredChunk(Chunk.make(s["text"], "source", s["locator"], "c", "c", s["doc_type"])),
                s["text"],
                0,
            )
        )
        for s in row["sources"]
    ]


def kept_readings(row: dict) -> list:
    from courserag.reader.reader import Reading

    return [Reading(p, start, end, score, chance) for p, start, end, score, chance in row["readings"]]


def kept_meanings(row: dict) -> list | None:
    """E5's cosines of the question with each source's units, as collected (None: not kept)."""
    meanings = [s.get("meanings") for s in row["sources"]]
    return None if any(m is None for m in meanings) else meanings


def read_back(rows: list[dict]) -> list[tuple[dict, tuple[list, list, list | None] | None]]:
    """Each row with its sources, readings and units' cosines rebuilt once (None: the reader
    did not decide it)."""
    return [
        (
            row,
            None
            if row.get("refused_by") is not None or "readings" not in row
            else (kept_sources(row), kept_readings(row), kept_meanings(row)),
        )
        for row in rows
    ]


def recomposed(rows: list[dict], params, ae) -> list[dict]:
    """The rows with their answers composed again with `params` (every question answered)."""
    return composed_again(read_back(rows), params, ae)


def composed_again(read: list[tuple[dict, tuple[list, list, list | None] | None]], params, ae) -> list[dict]:
    """`recomposed` over rows already read back, so a grid rebuilds no source."""
    from courserag.answers.extractive.read import compose_readings

    out = []
    for row, kept in read:
        if kept is None:
            out.append(row)
            continue
        sources, readings, meanings = kept
        said = compose_readings(
            row["gold"]["question"], sources, readings, row["wants_list"], ReaderCalibration(0.0, params), meanings
        )
        out.append({**row, **answer_said(row, said, ae)})
    return out


def quote_figures(rows: list[dict]) -> dict:
    """Correct with none refused (answerable questions answer_eval scores) and median words."""
    scored = [r for r in rows if r["answerable"] and r.get("scored", True)]
    said = [r["words"] for r in rows if "words" in r]
    return {
        "correct_answering_all": round(float(np.mean([bool(r.get("correct_if_answered")) for r in scored])), 3)
        if scored
        else None,
        "median_words": float(np.median(said)) if said else None,
    }


def fit_quotes(rows: list[dict], ae):
    """The grid's ReadParams with the highest mean correct over the fitting sets whose median
    answer on each stays within the composer's; the default when none does."""
    import itertools

    from courserag.answers.extractive.read_calibration import ReadParams

    fitting: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        if r["role"] == "fit" and r["set"] in COMPOSER_MEDIAN_WORDS:
            fitting[r["set"]].append(r)
    read = {name: read_back(group) for name, group in fitting.items()}
    best, best_mean, table = ReadParams(), -1.0, []
    for point in itertools.product(*QUOTE_GRID.values()):
        params = ReadParams(**dict(zip(QUOTE_GRID, point)))
        by_set = {name: quote_figures(composed_again(group, params, ae)) for name, group in read.items()}
        short = all(
            f["median_words"] is None or f["median_words"] <= COMPOSER_MEDIAN_WORDS[n] for n, f in by_set.items()
        )
        mean = float(
            np.mean([f["correct_answering_all"] for f in by_set.values() if f["correct_answering_all"] is not None])
        )
        table.append({"params": params.__dict__, "mean_correct": round(mean, 3), "short": short, "by_set": by_set})
        if short and mean > best_mean:
            best, best_mean = params, mean
    return best, table


def fit_refusal_model(rows: list[dict]):
    """The refusal's logistic fit (read_calibration.REFUSAL_FEATURES) on the fitting rows the
    reader decides, weighted as fit_refusal.py weighs the composer's: each set and each
    off-topic pair alike, SyllabusQA's answerable and "no answer" questions half a set each."""
    from courserag.answers.extractive.logistic import Logistic
    from courserag.answers.extractive.read_calibration import REFUSAL_FEATURES, refusal_features

    fitting = [r for r in rows if r["role"] == "fit" and r.get("refused_by") is None and "across" in r]
    said = [refusal_features(r["p"], r["across"], r.get("cosine"), r.get("chinese", False)) for r in fitting]
    names = tuple(
        f for f in REFUSAL_FEATURES if all(features[f] is not None for features in said)
    )  # rows kept before cosines were: without them
    x = np.array([[features[f] for f in names] for features in said], dtype=float)
    y = np.array([r["answerable"] for r in fitting], dtype=float)
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i, r in enumerate(fitting):
        groups[(fit_refusal._source(r), r["answerable"])].append(i)
    off_topic_pairs = {fit_refusal._pair(asked, host) for asked, host, *_ in OFF_TOPIC}
    w = np.zeros(len(fitting))
    for (name, _), idx in groups.items():
        share = 0.5 if name == "syllabusqa_dev" or name in off_topic_pairs else 1.0
        w[idx] = share / len(idx)
    w *= len(fitting) / w.sum()
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    beta = fit_refusal._fit_logistic(np.hstack([np.ones((len(x), 1)), (x - mean) / scale]), y, w)
    return Logistic(
        names,
        tuple(mean.round(6)),
        tuple(scale.round(6)),
        tuple(beta[1:].round(6)),
        round(float(beta[0]), 6),
    )


def figures(rows: list[dict], threshold: float) -> dict:
    """What the product does at `threshold`: correct (over the answerable questions
    answer_eval scores, and the "no answer" ones, right when refused), "no answer" refused,
    answerable refused. A row's `confidence` (the fitted refusal's) decides, else its `p`."""
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    refused = lambda r: r["refused_by"] is not None or r.get("confidence", r.get("p")) < threshold  # noqa: E731
    correct = [(not refused(r) and bool(r.get("correct_if_answered"))) for r in answerable if r.get("scored", True)]
    correct += [refused(r) for r in unanswerable]
    mean = lambda values: round(float(np.mean(values)), 3) if values else None  # noqa: E731
    return {
        "questions": len(rows),
        "correct": mean(correct),
        "no_answer_refused": mean([refused(r) for r in unanswerable]),
        "false_refusals": mean([refused(r) for r in answerable]),
    }


def choose(args) -> int:
    rows = [json.loads(line) for path in sorted(ROWS_DIR.glob("*.jsonl")) for line in path.open(encoding="utf-8")]
    if not rows:
        raise SystemExit(f"no rows in {ROWS_DIR}: run collect first")
    ae = fit_refusal._answer_eval()
    quotes, table = fit_quotes(rows, ae)
    read = read_back(rows)
    rows = composed_again(read, quotes, ae)
    print(json.dumps({"quotes": quotes.__dict__, "grid": table}), file=open(ROWS_DIR / "quote_grid.json", "w"))
    refusal = fit_refusal_model(rows)
    for r in rows:
        if r.get("refused_by") is None:
            r["confidence"] = ReaderCalibration(refusal=refusal).confidence(
                r["p"], r["across"], r.get("cosine"), r.get("chinese", False)
            )
    val = [r for r in rows if r["set"] == "syllabusqa_dev" and r["role"] == "val" and r["answerable"]]
    if not val:
        raise SystemExit("no SyllabusQA val rows to choose the operating point on")
    p = np.array([r.get("confidence", 0.0) for r in val])
    decides = np.array([r["refused_by"] is None for r in val])
    threshold = fit_refusal.operating_point(p, decides, ~decides, fit_refusal.FALSE_REFUSAL_BOUND)
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:  # off-topic rows by pair: which set's questions in which set's course
        groups[f"{r['set']} {r['role']}" + (f" ({r['kind']})" if r["set"] == "off_topic" else "")].append(r)
    report = {name: {**figures(group, threshold), **quote_figures(group)} for name, group in sorted(groups.items())}
    summary = {"threshold": threshold, "quotes": quotes.__dict__, "refusal": refusal.to_dict(), "by_set": report}
    print(json.dumps(summary, indent=2))
    if args.write:
        manifest_path = _weights().with_suffix(".json")
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        manifest["calibration"] = {
            "threshold": threshold,
            "quotes": quotes.__dict__,
            "refusal": refusal.to_dict(),
            "refusal_fitted_on": "the fitting questions of every set and off-topic pair, each weighing "
            "alike, SyllabusQA's answerable and 'no answer' questions half each",
            "quotes_fitted_on": "the fitting questions (role fit) of "
            + ", ".join(sorted(COMPOSER_MEDIAN_WORDS))
            + ": the highest mean correct with each set's median answer no longer than the composer's",
            "chosen_on": "SyllabusQA val: the highest threshold with answerable questions refused "
            f"<= {fit_refusal.FALSE_REFUSAL_BOUND}",
            "figures": report,
        }
        manifest_path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote calibration.threshold {threshold} into {manifest_path}", file=sys.stderr)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("collect", "choose"))
    parser.add_argument("--sets", help="collect: only these sets (comma-separated)")
    parser.add_argument("--write", action="store_true", help="choose: store the threshold in the manifest")
    args = parser.parse_args()
    return collect(args) if args.step == "collect" else choose(args)


if __name__ == "__main__":
    sys.exit(main())
