"""The instructor tab's logic: the token check, index statistics, rebuilds, batch tests.

Every entry point of the tab goes through `check_token` on every call: the token is read
from the environment at that moment (`settings.secret`) and compared in constant time.
Wrong tokens are counted per client (`TokenThrottle`): past a few in a window, that client
is refused without a comparison until the window has passed. Nothing sleeps: a 0.5 s delay
after each wrong token used to run in a worker, so 40 queued wrong tokens kept the real
instructor waiting 11 s, while guessing still ran at ~12 tokens a second.
Nothing here returns or logs the token. Everything else is asked of the engine.
"""

from __future__ import annotations

import hmac
import json
import logging
import threading
import time
import uuid
from collections import OrderedDict, deque
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
TokenState = Literal["ok", "disabled", "missing", "wrong", "throttled"]


class TokenThrottle:
    """Wrong tokens per client: `max_failures` in `window_s`, then refusal until they age out."""

    def __init__(self, max_failures: int = 20, window_s: float = 600.0, clock: Callable[[], float] = time.monotonic):
        self.max_failures = max_failures
        self.window_s = window_s
        self._clock = clock
        self._failures: OrderedDict[str, deque] = OrderedDict()
        self._lock = threading.Lock()

    def _recent(self, client: str) -> deque:
        times = self._failures.setdefault(client, deque())
        self._failures.move_to_end(client)
        while times and self._clock() - times[0] > self.window_s:
            times.popleft()
        while len(self._failures) > 10000:  # bounded memory: the oldest clients are forgotten
            self._failures.popitem(last=False)
        return times

    def retry_after(self, client: str) -> float:
        """Seconds until `client` may try again (0 when it may now)."""
        with self._lock:
            times = self._recent(client)
            if len(times) < self.max_failures:
                return 0.0
            return max(self.window_s - (self._clock() - times[0]), 0.0)

    def failed(self, client: str) -> None:
        with self._lock:
            self._recent(client).append(self._clock())


THROTTLE = TokenThrottle()


def check_token(token: object, client: str = "?", throttle: TokenThrottle = THROTTLE) -> TokenState:
    """'ok' only when INSTRUCTOR_TOKEN is set now and `token` equals it; 'throttled' while
    `client` has had too many wrong tokens (whatever it sends)."""
    expected = secret(TOKEN_ENV, required=False)
    if not expected:
        return "disabled"
    if not isinstance(token, str) or not token:
        return "missing"
    if throttle.retry_after(client):
        return "throttled"
    if hmac.compare_digest(token.encode("utf-8"), expected.encode("utf-8")):
        return "ok"
    throttle.failed(client)
    log.info("a wrong instructor token from %s", client)
    return "wrong"


@dataclass(frozen=True)
class IndexStats:
    """One course's index as the instructor sees it, with the engine's health."""

    course_id: str
    health: EngineHealth
    files: list[tuple[str, int]]
    chunks: int
    error: str = ""
    damaged: tuple[str, ...] = ()  # files whose stored chunks cannot be read


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
        damaged = self.engine.index_status(course_id).damaged
        return IndexStats(course_id, health, files, sum(chunks for _, chunks in files), damaged=damaged)

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
