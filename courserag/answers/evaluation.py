"""Answer-level evaluation: does the answer state the facts asked for, cite the right file,
and refuse what the materials do not cover?

A question set is a folder with `questions.jsonl` in the course_qa format (see
../shared/eval/course_qa_dev/README.md): {id, course, question, lang, kind, history,
answerable, facts, sources}. `facts` is a list of facts, each a list of alternative
strings; a fact is found when any alternative occurs in the normalised answer. A set may add
`absent`, facts in the same form that a correct answer must not hold (a follow-up about "the
second one" that repeats the whole list holds its first item too: eval/followup_qa).

    python rag_engine.py eval --set ../shared/eval/course_qa_dev

Instructors can write such a file for their own course and run the same command.
Scoring functions are pure; `run` is the only one that asks the engine.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from courserag.lang.script import CJK_TEXT, IDEOGRAPHS

_DASHES = re.compile("[\u2010-\u2015\u2212\ufe58\ufe63\uff0d]")
_SPACE_NEXT_TO_CJK = re.compile(f"(?<=[{CJK_TEXT}]) | (?=[{CJK_TEXT}])")


# What a learner reads of an answer: its first WINDOW words, a CJK character counting as a
# word (../shared/eval/answer_eval.py's definitions; tests/unit/answers/test_qa_eval.py checks they agree).
WINDOW = 120
_WORD = re.compile(rf"[{IDEOGRAPHS}]|[a-z0-9]+(?:[.,:/-][a-z0-9]+)*")


def _eval_norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", text or "").lower()
    text = re.sub(r"[*`_]", "", text)
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(rf"\s*([{IDEOGRAPHS}])\s*", r"\1", text)


def answer_words(text: str) -> list[str]:
    """Latin words and numbers, and single CJK characters, in order (answer_eval's `words`)."""
    return _WORD.findall(_eval_norm(text))


def first_words(text: str, n: int = WINDOW) -> str:
    """The normalised text up to the end of its n-th word, punctuation kept (for fact matching)."""
    text = _eval_norm(text)
    ends = [m.end() for m in _WORD.finditer(text)]
    return text if len(ends) <= n else text[: ends[n - 1]]


def normalize_answer(text: str) -> str:
    """NFKC, lower case, dashes as '-', no '*' or '`', single spaces, none next to CJK."""
    text = unicodedata.normalize("NFKC", text or "").lower()
    text = _DASHES.sub("-", text).replace("*", "").replace("`", "")
    text = " ".join(text.split())
    return _SPACE_NEXT_TO_CJK.sub("", text)


@dataclass(frozen=True)
class QAItem:
    """One question of a set."""

    id: str
    course: str
    question: str
    kind: str
    answerable: bool
    facts: tuple[tuple[str, ...], ...]
    sources: tuple[str, ...]
    history: tuple[dict, ...] = ()
    lang: str = ""
    absent: tuple[tuple[str, ...], ...] = ()  # facts a correct answer must not hold

    @staticmethod
    def from_dict(row: dict) -> "QAItem":
        return QAItem(
            id=str(row["id"]),
            course=str(row["course"]),
            question=str(row["question"]),
            kind=str(row.get("kind", "")),
            answerable=bool(row.get("answerable", True)),
            facts=tuple(tuple(str(a) for a in fact) for fact in row.get("facts", [])),
            sources=tuple(str(s) for s in row.get("sources", [])),
            history=tuple(m for m in row.get("history", []) if isinstance(m, dict)),
            lang=str(row.get("lang", "")),
            absent=tuple(tuple(str(a) for a in fact) for fact in row.get("absent", [])),
        )


@dataclass(frozen=True)
class QAScore:
    """How one answer did."""

    item: QAItem
    correct: bool
    fact_recall: float
    cited: bool
    refused: bool
    answer: str = ""
    top_chunk: bool = False  # the baseline: the first WINDOW words of the top cited text hold every fact
    ms: float | None = None  # the engine's timings_ms["total"]

    @property
    def false_refusal(self) -> bool:
        return self.item.answerable and self.refused


def load_questions(folder: Path) -> list[QAItem]:
    path = Path(folder) / "questions.jsonl" if Path(folder).is_dir() else Path(folder)
    return [
        QAItem.from_dict(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def fact_found(fact: Sequence[str], normalized_answer: str) -> bool:
    return any(normalize_answer(alternative) in normalized_answer for alternative in fact)


def score(
    item: QAItem, answer: str, refused: bool, cited_sources: Iterable[str], top_text: str = "", ms: float | None = None
) -> QAScore:
    """Score one result the way the set's README says; `top_text` is the top cited text, for
    the baseline that answers with its first WINDOW words."""
    if not item.answerable:
        return QAScore(item, correct=refused, fact_recall=0.0, cited=False, refused=refused, answer=answer, ms=ms)
    text = normalize_answer(answer)
    found = [fact_found(fact, text) for fact in item.facts]
    recall = sum(found) / len(found) if found else 1.0
    stray = any(fact_found(fact, text) for fact in item.absent)
    cited = any(str(source).endswith(gold) for source in cited_sources for gold in item.sources)
    top = normalize_answer(first_words(top_text))
    top_chunk = bool(top_text) and not refused and all(fact_found(fact, top) for fact in item.facts)
    return QAScore(
        item,
        correct=all(found) and not stray and not refused,
        fact_recall=recall,
        cited=cited,
        refused=refused,
        answer=answer,
        top_chunk=top_chunk,
        ms=ms,
    )


@dataclass
class QAReport:
    """Figures over a set: correct by kind and overall, fact recall, cited, refusals."""

    scores: list[QAScore] = field(default_factory=list)

    def _share(self, values: list[bool]) -> float:
        return sum(values) / len(values) if values else 0.0

    def by_kind(self) -> dict[str, float]:
        groups: dict[str, list[bool]] = defaultdict(list)
        for s in self.scores:
            groups[s.item.kind].append(s.correct)
        return {kind: self._share(values) for kind, values in sorted(groups.items())}

    def summary(self) -> dict[str, float]:
        answerable = [s for s in self.scores if s.item.answerable]
        unanswerable = [s for s in self.scores if not s.item.answerable]
        ms = sorted(s.ms for s in self.scores if s.ms is not None)
        return {
            "questions": len(self.scores),
            "correct": self._share([s.correct for s in self.scores]),
            "fact_recall": sum(s.fact_recall for s in answerable) / len(answerable) if answerable else 0.0,
            "cited": self._share([s.cited for s in answerable]),
            "false_refusals": self._share([s.refused for s in answerable]),
            "refuse_ok": self._share([s.refused for s in unanswerable]),
            # beside `correct_answerable`: the same answerable questions answered by the top chunk
            "correct_answerable": self._share([s.correct for s in answerable]),
            "top_chunk": self._share([s.top_chunk for s in answerable]),
            "words": _median([len(answer_words(s.answer)) for s in self.scores if not s.refused]),
            "ms_median": _median(ms),
            "ms_p95": ms[int(len(ms) * 0.95)] if ms else None,
        }

    def to_json(self) -> dict:
        return {
            "summary": self.summary(),
            "by_kind": self.by_kind(),
            "wrong": [
                {"id": s.item.id, "kind": s.item.kind, "question": s.item.question, "answer": s.answer}
                for s in self.scores
                if not s.correct
            ],
        }

    def table(self) -> str:
        summary = self.summary()
        lines = [f"{'kind':<14} {'n':>4} {'correct':>8}"]
        counts = defaultdict(int)
        for s in self.scores:
            counts[s.item.kind] += 1
        for kind, value in self.by_kind().items():
            lines.append(f"{kind:<14} {counts[kind]:>4} {value:>8.3f}")
        lines.append(f"{'all':<14} {summary['questions']:>4} {summary['correct']:>8.3f}")
        lines.append(
            f"fact recall {summary['fact_recall']:.3f} · cited {summary['cited']:.3f} · "
            f"false refusals {summary['false_refusals']:.3f} · refuse_ok {summary['refuse_ok']:.3f}"
        )
        lines.append(
            f"answerable: correct {summary['correct_answerable']:.3f} · top chunk {summary['top_chunk']:.3f}"
            f" · words (median) {summary['words']}"
            + (
                f" · ask ms median {summary['ms_median']:.0f}, p95 {summary['ms_p95']:.0f}"
                if summary["ms_median"]
                else ""
            )
        )
        return "\n".join(lines)


def _median(values: Sequence) -> float | int | None:
    values = sorted(values)
    return values[len(values) // 2] if values else None


def run(engine, items: Sequence[QAItem], progress=None) -> QAReport:
    """Ask every question (each in a fresh session, with its history) and score the answers."""
    report = QAReport()
    for number, item in enumerate(items, start=1):
        result = engine.ask(item.course, item.question, history=list(item.history))
        citations = result.citations
        report.scores.append(
            score(
                item,
                result.answer,
                result.refused,
                [c["source"] for c in citations],
                citations[0].get("text", "") if citations else "",
                result.timings_ms.get("total"),
            )
        )
        if progress:
            progress(number, len(items))
    return report
