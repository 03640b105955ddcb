"""The instructor tab's logic: the token check, index statistics, rebuilds, batch tests.

Every entry point of the tab goes through `check_token` on every call: the token is read
from the environment at that moment (`settings.secret`) and compared in constant time.
Nothing here returns or logs the token. Everything else is asked of the engine.
"""

from __future__ import annotations

import hmac
import json
import logging
import time
import uuid
from dataclasses import dataclass
from typing import Callable, Literal

from courserag.errors import CourseRagError
from courserag.feedback import FeedbackLog
from courserag.indexer import BuildSummary
from courserag.results import EngineHealth
from courserag.settings import secret

log = logging.getLogger(__name__)

TOKEN_ENV = "INSTRUCTOR_TOKEN"
MAX_BATCH_QUESTIONS = 100
TokenState = Literal["ok", "disabled", "missing", "wrong"]


def check_token(token: object) -> TokenState:
    """'ok' only when INSTRUCTOR_TOKEN is set now and `token` equals it."""
    expected = secret(TOKEN_ENV, required=False)
    if not expected:
        return "disabled"
    if not isinstance(token, str) or not token:
        return "missing"
    if hmac.compare_digest(token.encode("utf-8"), expected.encode("utf-8")):
        return "ok"
    time.sleep(0.5)  # slow down guessing a little
    return "wrong"


@dataclass(frozen=True)
class IndexStats:
    """One course's index as the instructor sees it, with the engine's health."""

    course_id: str
    health: EngineHealth
    files: list[tuple[str, int]]
    chunks: int
    error: str = ""


class InstructorTools:
    """What the unlocked tab does, over the learners' engine (same store, same embedder)."""

    def __init__(self, engine, feedback: FeedbackLog):
        self.engine = engine
        self.feedback = feedback

    def stats(self, course_id: str) -> IndexStats:
        self.engine.course(course_id)
        health = self.engine.health()
        try:
            records = self.engine.course_files(course_id)
        except CourseRagError as exc:
            return IndexStats(course_id, health, [], 0, str(exc))
        files = [(r.source, r.chunks) for r in records]
        return IndexStats(course_id, health, files, sum(chunks for _, chunks in files))

    def build(
        self,
        course_id: str,
        rebuild: bool,
        progress: Callable[[int, int, str], None] | None = None,
    ) -> BuildSummary | None:
        """Bring the course's index up to date; None when another build is running."""
        return self.engine.build_course(course_id, rebuild, progress)

    def batch(self, course_id: str, text: str, scope: str = "course") -> list[list]:
        """One row per question: #, question, result, answer, sources, ms.

        Lines are plain questions, or the JSON objects of `rag_engine.py ask --batch`
        ({"question": ..., "course": ..., "scope": ...}).
        """
        self.engine.course(course_id)
        session_id = f"instructor-batch-{uuid.uuid4().hex}"
        rows: list[list] = []
        lines = [line.strip() for line in (text or "").splitlines() if line.strip()][:MAX_BATCH_QUESTIONS]
        for number, line in enumerate(lines, start=1):
            question, course, line_scope = line, course_id, scope
            if line.startswith("{"):
                try:
                    record = json.loads(line)
                    question = str(record["question"])
                    course = record.get("course") or course_id
                    line_scope = record.get("scope", scope)
                except (ValueError, KeyError, TypeError):
                    rows.append([number, line, "error", "not a {question, course} JSON object", "", 0])
                    continue
            try:
                result = self.engine.ask(course, question, session_id, line_scope)
            except (CourseRagError, ValueError) as exc:
                rows.append([number, question, "error", str(exc), "", 0])
                continue
            sources = "; ".join(
                f"[{c['n']}] {c['source']} ({c['locator'].split(' > ')[-1]})" for c in result.citations
            )
            status = "refused" if result.refused else "answered"
            if result.warnings:
                status += " (warning)"
            answer = " ".join(result.answer.split())
            rows.append([
                number, question, status, answer[:400] + ("…" if len(answer) > 400 else ""),
                sources, round(result.timings_ms.get("total", 0.0)),
            ])
        self.engine.end_session(session_id)
        return rows
