"""The answer from the course materials and the learner's notes: retrieve, then answer.

The catalog's path (catalog_path.py) is given this one to quote the materials after its
own facts; the façade calls it for every other question. Neither calls back up.
"""

from __future__ import annotations

from typing import Iterator, Sequence

from courserag.engine.parts import EngineParts
from courserag.engine.requests import Question
from courserag.engine.retriever import Retriever
from courserag.engine.router import AnswerRouter
from courserag.records import Chunk
from courserag.results import Answer, Retrieval


class MaterialsPath:
    """Retrieval, then the answer router, for one question."""

    def __init__(self, parts: EngineParts, retriever: Retriever, router: AnswerRouter):
        self.parts = parts
        self.retriever = retriever
        self.router = router

    def retrieve(self, question: Question, offered: Sequence[Chunk] = ()) -> Retrieval:
        """The question's sources; `offered` passages compete with them (Retriever.retrieve)."""
        return self.retriever.retrieve(question, self.parts.directory.get(question.course_id), offered)

    def stream(self, question: Question, started: float, retrieval: Retrieval | None = None) -> Iterator[str | Answer]:
        """Yield the growing answer text while it streams, then the final Answer; from
        `retrieval` when the question was retrieved for already (never twice)."""
        yield from self.router.stream(question, retrieval or self.retrieve(question), started)
