"""From sources to the learner's answer: which path answers, and what the answer records.

A question about another listed course is redirected; no relevant source is a plain
refusal; otherwise the LLM answers when one is configured (its failure falls back to the
extractive composer, with a notice) and the composer quotes the sources when not.
"""

from __future__ import annotations

import logging
import time
from typing import Callable, Generator, Iterator

from courserag.answers.llm import build_messages
from courserag.answers.wording import Reply, refuse, write_extractive
from courserag.courses.codes import CodeCheck, check_codes
from courserag.courses.directory import Course
from courserag.engine.gaps import log_gaps
from courserag.engine.parts import EngineParts
from courserag.engine.requests import Question
from courserag.errors import LLMUnavailableError, QuestionError
from courserag.i18n.messages import Notice
from courserag.ingest.progress import PendingUpload
from courserag.lang.identifiers import chunk_identifiers
from courserag.lang.textnorm import well_formed
from courserag.results import Answer, Retrieval

log = logging.getLogger(__name__)

LLM_REFUSAL_MARKER = "NOT_IN_MATERIALS"


def _noted(retrieval: Retrieval, codes: CodeCheck) -> bool:
    """Whether the learner's own notes, first among the sources, name the other course the
    question asks about ("Where is the CSC3100 midterm review held?" asked in DS2010, with a
    note on it): the note answers, the learner is not sent to that course's workspace."""
    first = retrieval.items[0].hit.chunk if retrieval.items else None
    if first is None or first.origin == "course":
        return False
    named = chunk_identifiers(first.text)
    return any(code in named for code, _ in codes.other_courses)


class AnswerRouter:
    """Streams the answer to a question whose sources were already retrieved."""

    def __init__(self, parts: EngineParts, pending_uploads: Callable[[str | None], list[PendingUpload]]):
        self.parts = parts
        self._pending_uploads = pending_uploads

    def check(self, text: str) -> str:
        """The question without surrounding space; QuestionError when empty or too long."""
        text = well_formed(text).strip()
        if not text:
            raise QuestionError("empty_question")
        limit = self.parts.settings.limits.max_question_chars
        if len(text) > limit:
            # Checked before any work: a megabyte "question" would hold an answer slot for seconds.
            raise QuestionError("question_too_long", chars=len(text), limit=limit)
        return text

    def stream(self, question: Question, retrieval: Retrieval, started: float) -> Iterator[str | Answer]:
        """Yield the growing answer text while it streams, then the final Answer, assembled
        once from what the chosen path said."""
        answer_started = time.perf_counter()
        notices = list(retrieval.notices)
        lang = retrieval.query.reply_language
        course = self.parts.directory.get(question.course_id)
        codes = check_codes(retrieval.query.text, course, self.parts.directory)
        redirected = codes.about_another_course and not _noted(retrieval, codes)
        if redirected:
            code, other = codes.other_courses[0]
            reply = refuse(lang, "answer_other_course", code=code, name=other.name)
        elif not retrieval.items or (self.parts.answerer is not None and not retrieval.confident):
            reply = refuse(lang, "answer_not_found")
        elif self.parts.answerer is not None:
            reply = yield from self._llm_answer(question, retrieval, codes, course, notices)
        else:
            reply = self._extractive(retrieval, codes, course)
        now = time.perf_counter()
        answer = Answer(
            question.text,
            reply.text,
            reply.refused,
            [] if reply.refused else retrieval.items,
            notices,
            timings_ms={
                "retrieval": retrieval.retrieval_ms,
                "answer": (now - answer_started) * 1000,
                "total": (now - started) * 1000,
            },
            mode=reply.mode,
            query=retrieval.query.text,
            course_id=question.course_id,
            suggestions=list(reply.suggestions),
            focus=retrieval.focus,
            redirected=redirected,
        )
        if question.learner:  # an instructor's batch test feeds neither the gaps nor "most-cited files"
            pending = self._pending_uploads(question.session_id)
            log_gaps(self.parts.gap_log, answer, question.scope, pending, redirected=redirected)
        yield answer

    def _llm_answer(
        self, question: Question, retrieval: Retrieval, codes: CodeCheck, course: Course, notices: list[Notice]
    ) -> Generator[str, None, Reply]:
        """Stream the LLM's answer, then return what it said; on failure the extractive
        answer, with a notice (added to `notices`)."""
        text = ""
        try:
            for delta in self.parts.answerer.stream(build_messages(retrieval.query, retrieval.items, question.history)):
                text += delta
                if not LLM_REFUSAL_MARKER.startswith(text.strip()[: len(LLM_REFUSAL_MARKER)]):
                    yield text
        except LLMUnavailableError as exc:
            notices.append(Notice("llm_fallback", {"reason": exc.notice}))
            return self._extractive(retrieval, codes, course)
        if LLM_REFUSAL_MARKER in text:
            return refuse(retrieval.query.reply_language, "answer_not_found")
        return Reply(text.strip(), mode="llm")

    def _extractive(self, retrieval: Retrieval, codes: CodeCheck, course: Course) -> Reply:
        """Quote the units that answer, or refuse and point at the nearest source."""
        return write_extractive(
            retrieval,
            codes,
            course,
            self.parts.unit_similarity(retrieval.query),
            self.parts.embedder.word_vectors,
            self.parts.passage_similarity(retrieval.query),
            self.parts.reading,
        )
