"""What callers hand the engine: one typed request per question, instead of a run of
positional arguments repeated by every method on the way down."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from courserag.errors import QuestionError

Scope = Literal["both", "course", "notes"]
SCOPES = ("both", "course", "notes")


@dataclass(frozen=True)
class Question:
    """One learner question: which course, the words, whose notes, and the conversation so far.

    `scope` says where to search: the course's materials and the session's notes ("both"),
    or only one of them. `history` is the chat before this question (follow-ups read it).
    `learner` False (an instructor's batch test) logs no content gap and no citation.
    """

    course_id: str
    text: str
    session_id: str | None = None
    scope: Scope = "both"
    history: Sequence[object] = ()
    learner: bool = True

    def __post_init__(self) -> None:
        if self.scope not in SCOPES:
            raise QuestionError("bad_scope", scope=self.scope)
