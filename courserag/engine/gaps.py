"""What an answer tells the instructor: refused questions are content gaps, cited course
files are what learners use (the instructor tab's "content gaps" and "most cited")."""

from __future__ import annotations

import logging
from typing import Sequence

from courserag.instructor.feedback import FeedbackLog
from courserag.instructor.gap_rules import refusal_is_gap
from courserag.results import Answer

log = logging.getLogger(__name__)


def log_gaps(
    gap_log: FeedbackLog | None, answer: Answer, scope: str, pending_uploads: Sequence[object], redirected: bool = False
) -> None:
    """Record a refusal as a gap, or the files an answer cited.

    Which refusals are course gaps is gap_rules.refusal_is_gap's to say (not one about the
    learner's notes, a redirect to another course, or one asked while some of their notes
    were still being indexed)."""
    if gap_log is None:
        return
    try:
        pending = scope == "both" and bool(pending_uploads)
        if answer.refused and refusal_is_gap(answer.question, scope=scope, redirected=redirected, pending=pending):
            gap_log.log_refused(answer.question, answer.course_id, scope)
        elif not answer.refused:
            gap_log.log_citations(answer.course_id, answer.citations, answer.answer)
    except OSError:
        log.exception("could not write the content-gap logs")
