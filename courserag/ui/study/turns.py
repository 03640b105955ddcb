"""One answered question in the chat, as the feedback and follow-up logic needs it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class ChatTurn:
    """An answered question: where it sits in the chat, what was said, how it was rated."""

    index: int  # position of the assistant message in the chat history
    question: str
    answer: str
    citations: tuple[dict, ...]
    course: str
    scope: str
    refused: bool
    mode: str
    feedback: dict | None = field(default=None, compare=False)
    notices: tuple = field(default=(), compare=False)  # the answer's Notices, said again on a language switch
    pending: tuple[str, ...] = field(default=(), compare=False)  # the learner's files not searched yet
    said: str = field(default="", compare=False)  # a reply shown instead of the answer ("no_notes_to_search")

    def rated(self, record: dict | None) -> "ChatTurn":
        return replace(self, feedback=record)


def conversation(turns: list[ChatTurn], course: str) -> list[dict]:
    """The chat so far in this course as the engine reads history: each question and the
    answer it got, so a follow-up's "the second one" can mean the answer's second item."""
    messages: list[dict] = []
    for turn in turns:
        if turn.course == course:
            messages += [{"role": "user", "content": turn.question}, {"role": "assistant", "content": turn.answer}]
    return messages


def find_turn(turns: list[ChatTurn], index: object) -> ChatTurn | None:
    return next((turn for turn in turns if turn.index == index), None)


def replace_turn(turns: list[ChatTurn], new: ChatTurn) -> list[ChatTurn]:
    return [new if turn.index == new.index else turn for turn in turns]
