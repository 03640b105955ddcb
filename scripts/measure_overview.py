#!/usr/bin/env python3
"""How well the `overview` form (courserag/lang/intent_words.yaml) finds a description asked for.

    .venv/bin/python scripts/measure_overview.py

SyllabusQA labels each question with the kind of answer its annotators wrote; a
"summarization" answer is a passage, not a fact, so the composer should quote as much as a
learner reads (`Ask.long_answer`). On SyllabusQA's train split (where the words were chosen)
and its val split (reported), this prints how often the form fires, how often a question it
fires on is labelled "summarization" (precision) and how many of those it finds (recall); on
every other shared set, how many questions it fires on (their questions are factoid, so each
is a mistake) and which.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.answers import SHARED  # noqa: E402

OTHER_SETS = ("squad_v1_dev", "cmrc2018_dev", "xquad_zh2en_dev", "xquad_en2zh_dev", "xquad_zh_dev", "course_qa_dev")


def read(name: str) -> list[dict]:
    folder = SHARED / name
    path = folder / "queries.jsonl" if (folder / "queries.jsonl").exists() else folder / "questions.jsonl"
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def main() -> int:
    from courserag.lang.intent import classify

    syllabi = read("syllabusqa_dev")
    for split in ("train", "val"):
        asked = [q for q in syllabi if q.get("split") == split]
        fired = [q for q in asked if classify(q["question"]).overview]
        summaries = sum(q["question_type"] == "summarization" for q in asked)
        hits = sum(q["question_type"] == "summarization" for q in fired)
        print(
            f"syllabusqa_dev {split}: fires on {len(fired)} of {len(asked)} ({len(fired) / len(asked):.3f}), "
            f"precision {hits / max(1, len(fired)):.2f}, recall {hits / max(1, summaries):.2f}"
        )
    for name in OTHER_SETS:
        if not (SHARED / name).is_dir():
            continue
        questions = read(name)
        fired = [q["question"] for q in questions if classify(q["question"]).overview]
        print(f"{name}: fires on {len(fired)} of {len(questions)}" + "".join(f"\n  {q}" for q in fired))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
