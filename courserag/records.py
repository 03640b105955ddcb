"""Typed records that flow through the pipeline: parsed sections, chunks and scored chunks.

They are small frozen dataclasses so that every stage returns new values instead of
mutating what it was given.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Literal

Origin = Literal["course", "upload"]


def content_hash(text: str) -> str:
    """SHA-256 of the text: identical text gets the same id and is never embedded twice."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Section:
    """One locatable unit of a parsed file: a PDF page, a slide, a heading's body, a cell.

    `locator` is what a citation shows ("page 3", "slide 2", "Week 1 > Grading",
    "cell 4", "lines 10-42"); `heading` is the heading path, used as chunk context.
    """

    text: str
    locator: str
    heading: str = ""


@dataclass(frozen=True)
class Chunk:
    """A piece of text small enough to embed, with everything a citation needs."""

    id: str
    text: str
    source: str
    locator: str
    origin: Origin
    course_id: str | None = None
    doc_type: str = ""
    file_hash: str = ""

    @staticmethod
    def make(
        text: str,
        source: str,
        locator: str,
        origin: Origin,
        course_id: str | None = None,
        doc_type: str = "",
        file_hash: str = "",
    ) -> "Chunk":
        """Build a chunk whose id is stable: a hash of where it belongs and what it says."""
        key = f"{course_id or ''}\x1f{source}\x1f{locator}\x1f{text}"
        return Chunk(
            id=content_hash(key)[:32],
            text=text,
            source=source,
            locator=locator,
            origin=origin,
            course_id=course_id,
            doc_type=doc_type,
            file_hash=file_hash,
        )

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "text": self.text,
            "source": self.source,
            "locator": self.locator,
            "origin": self.origin,
            "course_id": self.course_id,
            "doc_type": self.doc_type,
            "file_hash": self.file_hash,
        }

    @staticmethod
    def from_dict(data: dict) -> "Chunk":
        return Chunk(
            id=data["id"],
            text=data["text"],
            source=data["source"],
            locator=data["locator"],
            origin=data["origin"],
            course_id=data.get("course_id"),
            doc_type=data.get("doc_type", ""),
            file_hash=data.get("file_hash", ""),
        )


@dataclass(frozen=True)
class ScoredChunk:
    """A chunk with the scores each retrieval signal gave it.

    `vector` is cosine similarity in [-1, 1]; `lexical` is a raw BM25 score from a store,
    normalised to [0, 1] once merged; `overlap` is the share of query tokens in the text;
    `identifier` is 1 for an exact course-code/assignment-id hit (0.5 for a typo);
    `sentence` is the cosine of its best sentence (courserag/retrieval/sentence_vectors.py), None when it has
    no sentence vectors;
    `score` is whatever the last ranking stage decided;
    `relevance` is the hybrid ranker's evidence that the chunk is about the question (half
    word share, half similarity margin: ranking.relevance), what its gate reads; None from a
    ranker that does not measure it.
    `store` names the backend that returned it ("local", "weaviate", "session").
    """

    chunk: Chunk
    vector: float = 0.0
    lexical: float = 0.0
    score: float = 0.0
    store: str = ""
    overlap: float = 0.0
    identifier: float = 0.0
    signals: tuple[str, ...] = field(default_factory=tuple)
    sentence: float | None = None
    relevance: float | None = None

    def with_score(self, score: float, **changes) -> "ScoredChunk":
        return replace(self, score=score, **changes)
