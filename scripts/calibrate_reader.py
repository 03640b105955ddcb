#!/usr/bin/env python3
"""Choose the reader's answerability threshold on real questions, as fit_refusal.py chooses the
composer's, and write it into the reader's manifest.

    READER_WEIGHTS=W .venv/bin/python scripts/calibrate_reader.py collect   # ask, keep the rows
    READER_WEIGHTS=W .venv/bin/python scripts/calibrate_reader.py choose [--write]

`collect` asks fit_refusal.py's questions (SyllabusQA `train` for fitting, its whole `val`,
and the Wikipedia sets' fitting questions and every fifth of their reported run) through the
product's own retrieval on the indexes `python -m bench.answers` keeps in EVAL_CACHE, reads the
retrieved sources with the reader told to answer everything (threshold 0), and keeps for each
question the reader's answerability probability, whether it is answerable, and whether the
answer the reader would give is correct (answer_eval's judge and window). A question that
retrieval or the course codes refuse first is kept as refused whatever the threshold.

`choose` picks one operating point on SyllabusQA `val`: the highest threshold at which its
answerable questions refused stay within fit_refusal's FALSE_REFUSAL_BOUND (the issue's 0.08),
the point fit_refusal.py chooses the same way, and reports every role of every set at it:
"no answer" refused, false refusals, correct. `--write` stores it in the manifest beside the
weights (`calibration`: threshold, where it was chosen, its figures); the weights' SHA-256
does not cover the manifest, so the file the product checks stays the same.
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

from bench.answers import CACHE  # noqa: E402

ROWS_DIR = Path(os.environ.get("READER_ROWS_DIR", CACHE / "reader_rows"))  # one <set>.jsonl per set


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
    for name in dict.fromkeys(name for name, *_ in fit_refusal.SOURCES if not wanted or name in wanted):
        with open(ROWS_DIR / f"{name}.jsonl", "w", encoding="utf-8") as out:
            for _, scope, role, n in [s for s in fit_refusal.SOURCES if s[0] == name]:
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
    return 0


def reader_row(q: dict, name: str, role: str, engine, course, reader, ae) -> dict:
    """One question: the reader's answerability and whether its answer would be correct."""
    from courserag.answers.extractive import render
    from courserag.answers.extractive.read import compose_read
    from courserag.answers.wording import _lead
    from courserag.courses.codes import check_codes
    from courserag.lang.script import script_of

    retrieval = engine.retrieve(course.id, q["question"])
    codes = check_codes(retrieval.query.text, course, engine.directory)
    answerable = q.get("answerable") is not False
    row = {"set": name, "role": role, "qid": q["qid"], "kind": q.get("question_type") or "answerable"}
    row["answerable"] = answerable
    # answer_eval scores an answerable question only when it can (judge: None otherwise)
    row["scored"] = answerable and ae.judge(q, "") is not None
    if codes.about_another_course or not retrieval.items:
        row["refused_by"] = "codes" if codes.about_another_course else "retrieval"
        return row
    said = compose_read(retrieval.query, retrieval.items, reader, 0.0)
    features = dict(said.features)
    row.update(refused_by=None, p=features.get("reader_answerable", 0.0), score=features.get("reader_score"))
    if said.refused:  # nothing to quote
        row["refused_by"] = said.reason
        return row
    text = render(said, _lead(script_of(q["question"]), said))
    row["words"] = len(ae.words(text))
    if answerable:
        row["correct_if_answered"] = ae.judge(q, ae.window(text))
    return row


def figures(rows: list[dict], threshold: float) -> dict:
    """What the product does at `threshold`: correct (over the answerable questions
    answer_eval scores, and the "no answer" ones, right when refused), "no answer" refused,
    answerable refused."""
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    refused = lambda r: r["refused_by"] is not None or r["p"] < threshold  # noqa: E731
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
    val = [r for r in rows if r["set"] == "syllabusqa_dev" and r["role"] == "val" and r["answerable"]]
    if not val:
        raise SystemExit("no SyllabusQA val rows to choose the operating point on")
    p = np.array([r.get("p", 0.0) for r in val])
    decides = np.array([r["refused_by"] is None for r in val])
    threshold = fit_refusal.operating_point(p, decides, ~decides, fit_refusal.FALSE_REFUSAL_BOUND)
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[f"{r['set']} {r['role']}"].append(r)
    report = {name: figures(group, threshold) for name, group in sorted(groups.items())}
    print(json.dumps({"threshold": threshold, "by_set": report}, indent=2))
    if args.write:
        manifest_path = _weights().with_suffix(".json")
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        manifest["calibration"] = {
            "threshold": threshold,
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
