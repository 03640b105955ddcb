"""Which questions count as content gaps: learners who could not get an answer from the
course's materials. The instructor's view (feedback.FeedbackLog.gap_groups) lists them.

A gap is a learner's question (never an instructor's batch test) that was refused, thumbed
down or marked wrong, about the course. Not gaps: a redirect to another course ("CSC3200 is
another course's code": the answer is right there), a question about the learner's own
notes ("What is in my notes?": no course file could answer it), a question searched in "my
notes" only, or asked while the learner's own files were still being indexed. The same
holds for votes (`vote_is_gap`): a 👎 on a redirect (recorded with mode "redirect") is none.
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


REDIRECT_MODE = "redirect"  # the mode a rated answer records when it sent the learner to another course


def vote_is_gap(record: dict, *, about_notes: bool = False) -> bool:
    """Whether a feedback record is a content gap: a learner's 👎 (or "wrong") on an answer
    about the course, not on a redirect, a "my notes" search or an answer drawn from the
    learner's own notes (`about_notes`: it cites them)."""
    return (
        record.get("vote") == "down"
        and record.get("mode") != REDIRECT_MODE
        and record.get("scope") != "notes"
        and not about_notes
        and not is_about_own_notes(str(record.get("question") or ""))
    )
