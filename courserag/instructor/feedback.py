"""Learner feedback and the content-gap logs, as JSON lines under DATA_DIR.

Four append-only files:

- `feedback.jsonl`: one record per thumbs up/down (a comment added later appends the same
  record again with the comment; readers keep the last record of each id).
- `refused_questions.jsonl`: questions the assistant could not answer from the course.
- `citations.jsonl`: which course files answers cited (course materials only).
- `gaps_resolved.jsonl`: content gaps an instructor marked as resolved.

Nothing a learner uploaded is ever written here: citations keep only file, locator and
origin (never the cited text), and when an answer quotes the learner's own notes its text
is withheld. The instructor tab reads these files for "most-cited files" and "content gaps".

Attribution: an answer is charged only to the sources its text cites ([n], see cited.py),
so a 👎 on an answer drawn from the learner's notes is not charged to a course file that was
merely consulted; and such an answer, being about private notes, is no content gap.
Gaps are grouped by question (case, spacing and end punctuation aside) with a count.
The files are bounded: one past `max_bytes` is renamed `<name>.1` (replacing the previous
one), so each log holds at most about twice that, and readers read all of it by default
(`read_bytes`, 2 × `max_bytes`): an instructor view costs at most that, whatever the logs'
age (a 108 MB log read whole took 1.6 s and 170 MB), and no record still held is silently
left out (reading the last 8 MB only once hid a genuine 👍 and its comment behind a flood;
feedback is also rate-limited per client, FEEDBACK_PER_CLIENT). A line torn by a crash
mid-write is skipped, and the next record starts on a line of its own.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import uuid
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from courserag.answers.cited import cited_numbers, split_cited
from courserag.instructor.gap_rules import vote_is_gap

log = logging.getLogger(__name__)

FEEDBACK_FILE = "feedback.jsonl"
REFUSED_FILE = "refused_questions.jsonl"
CITATIONS_FILE = "citations.jsonl"
RESOLVED_FILE = "gaps_resolved.jsonl"
VOTES = ("up", "down")
MAX_QUESTION_CHARS = 2000
MAX_ANSWER_CHARS = 8000
MAX_COMMENT_CHARS = 2000
ANSWER_WITHHELD = "[not stored: this answer quotes the learner's own uploaded notes]"
MAX_LOG_BYTES = 20 * 1024 * 1024  # a log is rotated past this
READ_BYTES = 2 * MAX_LOG_BYTES  # what a reader takes from the end of a log: all a log and its rotated file hold


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _clip(text: object, limit: int) -> str:
    text = str(text or "")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def gap_key(question: str) -> str:
    """What makes two questions the same gap: "Is there a final?" == "is there a  final ？"."""
    return " ".join(str(question or "").casefold().split()).rstrip(" ?？.。!！")


def charged_citations(record: dict) -> list[dict]:
    """The citations a feedback record charges: those its answer cited (`cited`, stored with
    the vote), or all of them for records written before that was stored."""
    citations = list(record.get("citations") or [])
    cited = record.get("cited")
    return [c for c in citations if c.get("n") in cited] if cited else citations


def is_about_notes(record: dict) -> bool:
    """A rated answer that cites the learner's own notes is about them, not the course."""
    return any(c.get("origin") == "upload" for c in charged_citations(record))


def safe_citations(citations: Iterable[dict]) -> list[dict]:
    """File, locator and origin of each citation: never its text, snippet or score."""
    return [
        {
            "n": c.get("n"),
            "source": str(c.get("source", "")),
            "locator": str(c.get("locator", "")),
            "origin": "upload" if c.get("origin") == "upload" else "course",
        }
        for c in citations
    ]


class FeedbackLog:
    """Thread-safe appends and simple reads of the three JSON-lines files."""

    def __init__(self, data_dir: Path, max_bytes: int = MAX_LOG_BYTES, read_bytes: int | None = None):
        self.data_dir = Path(data_dir)
        self.max_bytes = max_bytes
        self.read_bytes = 2 * max_bytes if read_bytes is None else read_bytes
        self.feedback_path = self.data_dir / FEEDBACK_FILE
        self.refused_path = self.data_dir / REFUSED_FILE
        self.citations_path = self.data_dir / CITATIONS_FILE
        self.resolved_path = self.data_dir / RESOLVED_FILE
        self._lock = threading.Lock()

    # -- writing ------------------------------------------------------------------------

    def _append(self, path: Path, record: dict) -> None:
        line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                if path.stat().st_size + len(line) > self.max_bytes:  # full: it becomes <name>.1
                    os.replace(path, path.with_name(path.name + ".1"))
            except FileNotFoundError:
                pass
            with path.open("a+b") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size and os.pread(handle.fileno(), 1, size - 1) != b"\n":
                    line = b"\n" + line  # the last line was torn (a crash mid-write): start afresh
                handle.write(line)

    def record_vote(self, **fields) -> dict:
        """Store one vote (`fields` as `vote_record` takes them); returns the record (its
        `id` is what a later comment refers to)."""
        record = self.vote_record(**fields)
        self._append(self.feedback_path, record)
        return record

    @staticmethod
    def vote_record(
        *,
        question: str,
        answer: str,
        citations: Sequence[dict],
        course_id: str,
        vote: str,
        scope: str = "both",
        refused: bool = False,
        mode: str = "",
        comment: str = "",
        feedback_id: str | None = None,
    ) -> dict:
        """The record a vote stores, without storing it (a reload rebuilds its turn's vote)."""
        if vote not in VOTES:
            raise ValueError(f"vote must be one of {VOTES}, but got {vote!r}")
        cites = safe_citations(citations)
        quotes_notes = any(c["origin"] == "upload" for c in cites)
        numbers = {c["n"] for c in cites}
        cited = [n for n in cited_numbers(answer) if n in numbers]
        record = {
            "id": feedback_id or uuid.uuid4().hex,
            "timestamp": _now(),
            "course": course_id,
            "vote": vote,
            "comment": _clip(comment, MAX_COMMENT_CHARS),
            "question": _clip(question, MAX_QUESTION_CHARS),
            "answer": ANSWER_WITHHELD if quotes_notes else _clip(answer, MAX_ANSWER_CHARS),
            "answer_withheld": quotes_notes,
            "citations": cites,
            "cited": cited,  # the numbers the answer marks; [] when it marks none
            "refused": bool(refused),
            "scope": scope,
            "mode": mode,
        }
        return record

    def add_comment(self, record: dict, comment: str) -> dict:
        """Append the same record again with its comment (readers keep the latest)."""
        updated = dict(record, comment=_clip(comment, MAX_COMMENT_CHARS), timestamp=_now())
        self._append(self.feedback_path, updated)
        return updated

    def mark_wrong(self, record: dict) -> dict:
        """The learner says the answer is wrong (not only unhelpful): a 👎 that says so."""
        updated = dict(record, vote="down", wrong=True, timestamp=_now())
        self._append(self.feedback_path, updated)
        return updated

    def withdraw(self, record: dict) -> dict:
        """The learner clicked the same thumb again: keep the record, mark it withdrawn."""
        updated = dict(record, vote="withdrawn", timestamp=_now())
        self._append(self.feedback_path, updated)
        return updated

    def log_refused(self, question: str, course_id: str, scope: str) -> None:
        """A question the course materials could not answer (the question only)."""
        self._append(
            self.refused_path,
            {"timestamp": _now(), "course": course_id, "scope": scope, "question": _clip(question, MAX_QUESTION_CHARS)},
        )

    def resolve_gap(self, course_id: str, key: str) -> None:
        """An instructor dealt with a gap: it is hidden until the question is asked again."""
        self._append(self.resolved_path, {"timestamp": _now(), "course": course_id, "key": gap_key(key)})

    def log_citations(self, course_id: str, citations: Sequence[dict], answer: str | None = None) -> None:
        """Which course files an answer cited (those its text marks, when `answer` is given);
        the learner's own notes are not logged."""
        if answer is not None:
            citations, _ = split_cited(citations, answer)
        sources = sorted({str(c.get("source")) for c in citations if c.get("origin") == "course"})
        if sources:
            self._append(self.citations_path, {"timestamp": _now(), "course": course_id, "sources": sources})

    # -- reading ------------------------------------------------------------------------

    def _tail(self, path: Path, budget: int) -> list[bytes]:
        """The whole lines among the last `budget` bytes of `path` (none if it is missing)."""
        try:
            with path.open("rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                start = max(0, size - budget)
                handle.seek(start)
                data = handle.read(size - start)
        except FileNotFoundError:
            return []
        lines = data.split(b"\n")
        return lines[1:] if start > 0 else lines  # the first line was cut by where we started

    def _read(self, path: Path) -> Iterator[dict]:
        """Records of the log's last `read_bytes` (the rotated file first), oldest first."""
        current = self._tail(path, self.read_bytes)
        used = sum(len(line) + 1 for line in current)
        older = self._tail(path.with_name(path.name + ".1"), self.read_bytes - used) if used < self.read_bytes else []
        for number, line in enumerate(older + current, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                log.warning("%s: a line that is not JSON was skipped (%d)", path.name, number)
                continue
            if isinstance(record, dict):
                yield record

    def feedback(self, course_id: str | None = None) -> list[dict]:
        """The latest version of every feedback record, oldest first."""
        latest: dict[str, dict] = {}
        for record in self._read(self.feedback_path):
            key = str(record.get("id"))
            latest.pop(key, None)  # re-insert so the order follows the latest write
            latest[key] = record
        return [r for r in latest.values() if course_id is None or r.get("course") == course_id]

    def refused(self, course_id: str | None = None) -> list[dict]:
        return [r for r in self._read(self.refused_path) if course_id is None or r.get("course") == course_id]

    def content_gaps(self, course_id: str | None = None, limit: int | None = 50) -> list[dict]:
        """Refused questions and answers thumbed down or marked wrong that are gaps
        (gap_rules.vote_is_gap), newest first."""
        rows = [
            {
                "timestamp": r.get("timestamp", ""),
                "course": r.get("course", ""),
                "kind": "refused",
                "question": r.get("question", ""),
                "comment": "",
            }
            for r in self.refused(course_id)
        ]
        rows += [
            {
                "timestamp": r.get("timestamp", ""),
                "course": r.get("course", ""),
                "kind": "wrong" if r.get("wrong") else "thumbs down",
                "question": r.get("question", ""),
                "comment": r.get("comment", ""),
                "files": sorted({str(c.get("source")) for c in charged_citations(r) if c.get("origin") == "course"}),
                "sources": [
                    (str(c.get("source")), str(c.get("locator", "")))
                    for c in charged_citations(r)
                    if c.get("origin") == "course"
                ],
            }
            for r in self.feedback(course_id)
            if vote_is_gap(r, about_notes=is_about_notes(r))
        ]
        rows.sort(key=lambda row: row["timestamp"], reverse=True)
        return rows[:limit]

    def gap_groups(self, course_id: str, limit: int = 50) -> list[dict]:
        """Open content gaps grouped by question, most asked first: for each, the latest
        wording, how often it was refused or thumbed down since it was last resolved, when it
        was last asked, the comments and the course files the thumbed-down answers cited."""
        resolved: dict[str, str] = {}
        for record in self._read(self.resolved_path):
            if record.get("course") == course_id:
                resolved[str(record.get("key"))] = max(
                    resolved.get(str(record.get("key")), ""), str(record.get("timestamp"))
                )
        groups: dict[str, dict] = {}
        for row in self.content_gaps(course_id, limit=None):
            key = gap_key(row["question"])
            if not key or str(row["timestamp"]) <= resolved.get(key, ""):
                continue
            group = groups.setdefault(
                key,
                {
                    "key": key,
                    "question": row["question"],
                    "count": 0,
                    "refused": 0,
                    "down": 0,
                    "wrong": 0,
                    "last": row["timestamp"],
                    "comments": [],
                    "files": [],
                    "sources": [],
                },
            )
            group["count"] += 1
            group["refused" if row["kind"] == "refused" else "down"] += 1
            group["wrong"] += row["kind"] == "wrong"
            group["sources"] += [s for s in row.get("sources", ()) if s not in group["sources"]]
            if row["comment"]:
                group["comments"].append(row["comment"])
            group["files"] += [f for f in row.get("files", ()) if f not in group["files"]]
        ordered = sorted(groups.values(), key=lambda g: g["last"], reverse=True)  # newest first…
        ordered.sort(key=lambda g: -g["count"])  # …within the same count (a stable sort)
        return ordered[:limit]

    def most_cited(
        self, course_id: str, limit: int = 10, present: set[str] | None = None
    ) -> list[tuple[str, int, int, int]]:
        """(file, times cited, 👍 answers citing it, 👎 answers citing it), most cited first;
        with `present`, only those files (a removed file drops out; restored, it comes back)."""
        cited: Counter[str] = Counter()
        for record in self._read(self.citations_path):
            if record.get("course") == course_id:
                cited.update(str(s) for s in record.get("sources", []))
        ups: Counter[str] = Counter()
        downs: Counter[str] = Counter()
        for record in self.feedback(course_id):
            sources = {c.get("source") for c in charged_citations(record) if c.get("origin") == "course"}
            target = ups if record.get("vote") == "up" else downs if record.get("vote") == "down" else None
            if target is not None:
                target.update(str(s) for s in sources)
        files = set(cited) | set(ups) | set(downs)
        if present is not None:
            files &= set(present)
        rows = [(f, cited[f], ups[f], downs[f]) for f in files]
        rows.sort(key=lambda row: (-row[1], -row[3], row[0]))
        return rows[:limit]
