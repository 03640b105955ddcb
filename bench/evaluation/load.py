"""Step 1: read an evaluation set, optionally a seeded sample of it.

A set (see ../shared/eval/README.md) is `corpus.jsonl` passages {doc_id, title, text} and
`queries.jsonl` questions {qid, question, gold_doc_ids, title, lang, answerable}.
"""

from __future__ import annotations

import json
import random
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Passage:
    doc_id: str
    title: str
    text: str


@dataclass(frozen=True)
class Question:
    qid: str
    question: str
    gold: frozenset[str]
    title: str
    lang: str
    answerable: bool | None
    answers: tuple[str, ...] = ()  # reference answer spans, in the passages' language


@dataclass(frozen=True)
class EvalSet:
    name: str
    passages: tuple[Passage, ...]
    questions: tuple[Question, ...]

    @property
    def titles(self) -> list[str]:
        return list(OrderedDict.fromkeys(p.title for p in self.passages))


def _read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def load_set(path: Path, titles: int | None = None, limit: int | None = None, seed: int = 0) -> EvalSet:
    """Read a set; optionally keep `titles` seeded-random titles (corpus and questions) and
    then at most `limit` seeded-random questions (in file order; the corpus is kept)."""
    path = Path(path)
    if not (path / "corpus.jsonl").is_file() or not (path / "queries.jsonl").is_file():
        raise FileNotFoundError(f"{path} is not an evaluation set (corpus.jsonl and queries.jsonl expected)")
    passages = [Passage(r["doc_id"], r["title"], r["text"]) for r in _read_jsonl(path / "corpus.jsonl")]
    questions = [
        Question(
            str(r["qid"]),
            r["question"],
            frozenset(r.get("gold_doc_ids") or [r["gold_doc_id"]]),
            r["title"],
            r.get("lang", ""),
            r.get("answerable"),
            tuple(a if isinstance(a, str) else a.get("text", "") for a in r.get("answers") or []),
        )
        for r in _read_jsonl(path / "queries.jsonl")
    ]
    rng = random.Random(seed)
    if titles is not None:
        all_titles = list(OrderedDict.fromkeys(p.title for p in passages))
        asked = {q.title for q in questions}
        keep = set(rng.sample([t for t in all_titles if t in asked], min(titles, len(asked))))
        passages = [p for p in passages if p.title in keep]
        questions = [q for q in questions if q.title in keep]
    if limit is not None and limit < len(questions):
        chosen = set(rng.sample(range(len(questions)), limit))
        questions = [q for i, q in enumerate(questions) if i in chosen]
    return EvalSet(path.name, tuple(passages), tuple(questions))
