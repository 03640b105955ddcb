"""What an answer tells the instructor: refused questions are content gaps, cited course
files are what learners use (the instructor tab's "content gaps" and "most cited")."""

from __future__ import annotations

import logging
from typing import Sequence

from courserag.instructor.feedback import FeedbackLog
from courserag.results import Answer

log = logging.getLogger(__name__)


def log_gaps(gap_log: FeedbackLog | None, answer: Answer, scope: str, pending_uploads: Sequence[object]) -> None:
    """Record a refusal as a gap, or the files an answer cited.

    A refusal is not a course gap when the question was about the learner's notes
    (scope "notes") or while some of their notes were still being indexed."""
    if gap_log is None:
        return
    try:
        if answer.refused and scope != "notes" and not (scope == "both" and pending_uploads):
            gap_log.log_refused(answer.question, answer.course_id, scope)
        elif not answer.refused:
            gap_log.log_citations(answer.course_id, answer.citations, answer.answer)
    except OSError:
        log.exception("could not write the content-gap logs")
