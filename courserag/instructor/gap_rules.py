"""Which questions count as content gaps: learners who could not get an answer from the
course's materials. The instructor's view (feedback.FeedbackLog.gap_groups) lists them.

A gap is a learner's question (never an instructor's batch test) that was refused, thumbed
down or marked wrong, about the course. Not gaps: a redirect to another course ("CSC3200 is
another course's code": the answer is right there), a question about the learner's own
notes ("What is in my notes?": no course file could answer it), a question searched in "my
notes" only, or asked while the learner's own files were still being indexed.
"""

from __future__ import annotations

import re

# "my notes", "my uploaded files", "our slides I uploaded" … and the Chinese 我的笔记 / 我上传的.
_ABOUT_OWN_NOTES = re.compile(
    r"\b(?:my|our)\s+(?:own\s+)?(?:uploaded\s+)?(?:notes?|uploads?|files?|documents?|pdfs?)\b"
    r"|\b(?:i|we)\s+(?:have\s+)?uploaded\b|我的笔记|我(?:们)?上传|我的(?:文件|文档|资料)",
    re.IGNORECASE,
)


def is_about_own_notes(question: str) -> bool:
    """Whether the question asks about the learner's own uploads rather than the course."""
    return bool(_ABOUT_OWN_NOTES.search(question or ""))


def refusal_is_gap(
    question: str, *, scope: str, redirected: bool = False, pending: bool = False, learner: bool = True
) -> bool:
    """Whether a refused question is a content gap (see the module's docstring)."""
    return learner and not redirected and not pending and scope != "notes" and not is_about_own_notes(question)
