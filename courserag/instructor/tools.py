"""The instructor tab's logic: the token check, index statistics, rebuilds, batch tests,
course files and the course's learner-facing words.

Every entry point of the tab goes through `check_token` on every call: the tokens are read
from the environment at that moment (`settings.secret`) and compared in constant time.
INSTRUCTOR_TOKEN unlocks every course; INSTRUCTOR_TOKENS gives a course its own token
(`csc3100=token-a,ds2010=token-b`, or a JSON object), which unlocks that course only.

Wrong tokens are counted per client (`TokenThrottle`): past a few in a window, that client
is refused without a comparison until the window has passed. Nothing sleeps: a 0.5 s delay
after each wrong token used to run in a worker, so 40 queued wrong tokens kept the real
instructor waiting 11 s, while guessing still ran at ~12 tokens a second.
Nothing here returns or logs a token. Everything else is asked of the engine.

Course files are added, removed (to the course's trash) and restored by course_files.py.
"""

from __future__ import annotations

import hmac
import json
import logging
import re
import threading
import time
import uuid
from collections import OrderedDict, deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal, Sequence

from courserag.config.settings import Settings, secret
from courserag.courses.directory import Course
from courserag.courses.edit import update_course, validated
from courserag.courses.indexer import BuildSummary
from courserag.errors import CourseRagError
from courserag.i18n.messages import Notice
from courserag.ingest.parsers import safe_display_name
from courserag.instructor.course_files import CourseFile, CourseFiles, OnClash
from courserag.instructor.feedback import FeedbackLog
from courserag.instructor.placement import checked_folder, free_name, subfolders, taken_names
from courserag.instructor.trash import TrashEntry
from courserag.results import EngineHealth

log = logging.getLogger(__name__)

TOKEN_ENV = "INSTRUCTOR_TOKEN"
TOKENS_ENV = "INSTRUCTOR_TOKENS"
MAX_BATCH_QUESTIONS = 100
TokenState = Literal["ok", "disabled", "missing", "wrong", "throttled"]
_PAIR = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9_.-]*)\s*[=:]\s*(\S+)\s*")


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


def course_tokens() -> dict[str, str]:
    """INSTRUCTOR_TOKENS as {course id: token}: `id=token` pairs separated by commas,
    semicolons or new lines, or a JSON object. Unparsable parts are ignored (and logged by
    position, never by value)."""
    raw = secret(TOKENS_ENV, required=False) or ""
    if raw.strip().startswith("{"):
        try:
            data = json.loads(raw)
        except ValueError:
            log.warning("%s is not valid JSON; no per-course tokens are set", TOKENS_ENV)
            return {}
        return {str(k): str(v) for k, v in data.items() if str(k) and str(v)} if isinstance(data, dict) else {}
    tokens = {}
    for position, part in enumerate(p for p in re.split(r"[,;\n]", raw) if p.strip()):
        match = _PAIR.fullmatch(part)
        if match:
            tokens[match.group(1)] = match.group(2)
        else:
            log.warning("%s entry #%d is not id=token; ignored", TOKENS_ENV, position + 1)
    return tokens


def _same(token: str, expected: str) -> bool:
    return hmac.compare_digest(token.encode("utf-8"), expected.encode("utf-8"))


def token_courses(token: object, course_ids: Sequence[str]) -> list[str]:
    """The courses `token` unlocks now: all of them for INSTRUCTOR_TOKEN, else those whose
    INSTRUCTOR_TOKENS entry it is."""
    if not isinstance(token, str) or not token:
        return []
    expected = secret(TOKEN_ENV, required=False)
    if expected and _same(token, expected):
        return list(course_ids)
    per_course = course_tokens()
    return [c for c in course_ids if c in per_course and _same(token, per_course[c])]


def check_token(
    token: object, course_id: str | None = None, client: str = "?", throttle: TokenThrottle = THROTTLE
) -> TokenState:
    """'ok' only when `token` is INSTRUCTOR_TOKEN, or the INSTRUCTOR_TOKENS token of
    `course_id`; with no course named, only INSTRUCTOR_TOKEN (a course's token once read every
    course's gaps that way); 'disabled' when neither is set; 'throttled' while `client` has had
    too many wrong tokens (whatever it sends)."""
    expected = secret(TOKEN_ENV, required=False)
    per_course = course_tokens()
    if not expected and not per_course:
        return "disabled"
    if not isinstance(token, str) or not token:
        return "missing"
    if throttle.retry_after(client):
        return "throttled"
    if expected and _same(token, expected):
        return "ok"
    if course_id in per_course and _same(token, per_course[course_id]):
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

    def __init__(self, engine, feedback: FeedbackLog, settings: Settings | None = None):
        self.engine = engine
        self.feedback = feedback
        self.settings = settings or Settings()
        self.course_files = CourseFiles(engine, self.settings)

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

    # -- the course's files ------------------------------------------------------------

    def files(self, course_id: str) -> list[CourseFile]:
        """Every file of the course folder, with its passages in the index."""
        return self.course_files.files(course_id)

    def folders(self, course_id: str) -> list[str]:
        """The course folder's subfolders an upload may be stored in."""
        return subfolders(self.engine.course(course_id).docs)

    def clashes(self, course_id: str, names: Sequence[str], folder: object = ".") -> list[str]:
        """The upload names already taken in the target folder (see CourseFiles.clashes)."""
        return self.course_files.clashes(course_id, names, folder)

    def kept_name(self, course_id: str, name: str, folder: object = ".") -> str:
        """The name "keep both" would give the upload `name` in `folder`."""
        target = checked_folder(self.engine.course(course_id).docs, folder)
        return free_name(safe_display_name(name), taken_names(target))

    def add_files(
        self,
        course_id: str,
        uploads: Sequence[tuple[Path, str]],
        progress: Callable[[int, int, str], None] | None = None,
        folder: object = ".",
        on_clash: OnClash = "ask",
    ) -> tuple[BuildSummary | None, list[Notice]]:
        """Store uploads in the course folder and index them (see CourseFiles.add)."""
        return self.course_files.add(course_id, uploads, progress, folder, on_clash)

    def remove_file(
        self, course_id: str, source: str, progress: Callable[[int, int, str], None] | None = None
    ) -> BuildSummary | None:
        """Move a file to the course's trash and drop its passages from the index."""
        return self.course_files.remove(course_id, source, progress)

    def trashed(self, course_id: str) -> list[TrashEntry]:
        return self.course_files.trashed(course_id)

    def restore_file(
        self, course_id: str, entry_id: object, progress: Callable[[int, int, str], None] | None = None
    ) -> tuple[str, BuildSummary | None]:
        """Put a trashed file back and index it: (its path now, the build)."""
        return self.course_files.restore(course_id, entry_id, progress)

    def most_cited(self, course_id: str) -> list[tuple[str, int, int, int]]:
        """Most-cited files that are still in the course folder (a removed file drops out)."""
        present = {f.source for f in self.files(course_id)}
        return self.feedback.most_cited(course_id, present=present)

    # -- the course's words ---------------------------------------------------------------

    def edit_course(self, course_id: str, name: str, description: str, examples: str | Sequence[str]) -> Course:
        """Save the course's name, description and example questions; the new course."""
        self.engine.course(course_id)
        update_course(self.settings.course_directory, course_id, validated(name, description, examples))
        self.engine.reload_courses()
        return self.engine.course(course_id)

    def batch(
        self, course_id: str, text: str, scope: str = "course", describe: Callable[[str], str] | None = None
    ) -> list[list]:
        """One row per question: #, question, result, answer, sources, ms.

        Lines are plain questions, or the JSON objects of `rag_engine.py ask --batch`
        ({"question": ..., "course": ..., "scope": ...}). `describe` says a locator (the UI's
        language); by default its last part as written.
        """
        describe = describe or (lambda locator: locator.split(" > ")[-1])
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
                except (ValueError, KeyError, TypeError, AttributeError):
                    rows.append([number, line, "error", "not a {question, course} JSON object", "", 0])
                    continue
                if course != course_id:  # the token was checked for this course only
                    rows.append(
                        [number, question, "error", f"this batch tests course {course_id} only, not {course}", "", 0]
                    )
                    continue
            try:
                result = self.engine.ask(
                    course, question, session_id=session_id, scope=line_scope, learner=False
                )  # not a learner's gap
            except (CourseRagError, ValueError) as exc:
                rows.append([number, question, "error", str(exc), "", 0])
                continue
            sources = "; ".join(f"[{c['n']}] {c['source']} ({describe(c['locator'])})" for c in result.citations)
            status = "refused" if result.refused else "answered"
            if result.warnings:
                status += " (warning)"
            answer = " ".join(result.answer.split())
            rows.append(
                [
                    number,
                    question,
                    status,
                    answer[:400] + ("…" if len(answer) > 400 else ""),
                    sources,
                    round(result.timings_ms.get("total", 0.0)),
                ]
            )
        self.engine.end_session(session_id)
        return rows
