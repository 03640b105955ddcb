"""What the engine hands back: retrievals, answers, upload results, index and health reports.

Small records with no behaviour beyond saying themselves: `Answer.to_json` is the CLI's
`ask --json` contract (fields are only ever added), and `UploadResult.say(lang)` is the one
wording of an upload's outcome, used by the UI and the CLI alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from courserag.i18n.messages import Notice, render, unit_word
from courserag.ingest.parsers import UNIT_OF_DOC_TYPE  # the unit a file is read in, by document type
from courserag.lang.query import Query
from courserag.retrieval.packing import ContextItem, citation_dict
from courserag.stores.base import StoreHealth


@dataclass(frozen=True)
class Retrieval:
    """What retrieval found for one question, ready for the answerer."""

    question: str
    query: Query  # the question as read once: search text, language, vector, what it asks for
    items: list[ContextItem]
    notices: list[Notice]
    retrieval_ms: float
    candidates: int
    # The item of an earlier answer a follow-up points at ("the second one"), and the other
    # items of that list: the answer is about the one, not the list again (followup.py).
    focus: str = ""
    siblings: tuple[str, ...] = ()
    # Some source reached the relevance gate (ranking.confident): an LLM is asked only then;
    # below it the extractive answer's fitted decision still weighs what was found.
    confident: bool = True
    # A passage offered from outside the materials (the catalog's answer, engine/catalog_path.py)
    # answers best (retriever._offered_best): the catalog answers, not the materials.
    offered_best: bool = False
    # A passage not offered answers better than every offered one, reaches the ranker's gate,
    # and holds a word of the question that none of them holds (retriever._offered_outdone):
    # a note or the materials answer a question the catalog also claims for a course it names.
    offered_outdone: bool = False


@dataclass(frozen=True)
class Answer:
    """The result of one question, assembled once by the path that answered it (never edited
    after); `to_json` is the CLI's `ask --json` contract."""

    question: str
    answer: str
    refused: bool
    items: list[ContextItem]
    notices: list[Notice] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    mode: str = "extractive"
    query: str = ""
    course_id: str | None = None
    suggestions: list[dict] = field(default_factory=list)  # a refusal's "you may want to look at"
    catalog_records: dict[int, dict] = field(default_factory=dict)  # source n -> its catalog file, rows, record id
    focus: str = ""  # the earlier answer's item a follow-up asked about ("the second one"), if any
    redirected: bool = False  # refused because it is about another listed course (no content gap)

    def with_notices(self, notices) -> "Answer":
        """This answer with `notices` added (those it does not already say)."""
        extra = [n for n in notices if n not in self.notices]
        return replace(self, notices=[*self.notices, *extra]) if extra else self

    @property
    def citations(self) -> list[dict]:
        return [citation_dict(item) for item in self.items]

    @property
    def warnings(self) -> list[str]:
        """The notices in English (the JSON contract's `warnings`)."""
        return [notice.text("en") for notice in self.notices]

    def to_json(self) -> dict:
        citations = self.citations
        for citation in citations:  # catalog sources also say which record they are
            if citation["n"] in self.catalog_records:
                citation["catalog"] = self.catalog_records[citation["n"]]
        return {
            "answer": self.answer,
            "refused": self.refused,
            "citations": citations,
            "warnings": self.warnings,
            "timings_ms": {k: round(v, 2) for k, v in self.timings_ms.items()},
            "mode": self.mode,
            "course_id": self.course_id,
            "query": self.query,
            "suggestions": list(self.suggestions),
            "focus": self.focus,
        }


@dataclass(frozen=True)
class UploadResult:
    """Per-file outcome shown in the upload status list (UI) and on stderr (CLI)."""

    name: str
    ok: bool
    chunks_added: int = 0
    units: int = 0
    doc_type: str = ""
    warnings: tuple[Notice, ...] = ()
    failure: Notice | None = None  # why the file was refused (ok is False)
    duplicate: bool = False
    unit: str = ""  # what `units` counts ("page", "slide", "line"…); from the doc type when empty

    def say(self, lang: str = "en") -> str:
        """The one sentence for this outcome, in `lang`."""
        if not self.ok:
            return render("upload_failed", {"error": self.failure}, lang)
        if self.duplicate:
            return render("upload_duplicate", {"name": self.name}, lang)
        unit = self.unit or UNIT_OF_DOC_TYPE.get(self.doc_type, "section")
        line = render(
            "upload_ok",
            {
                "name": self.name,
                "units": self.units,
                "unit": unit_word(unit, self.units, lang),
                "chunks": self.chunks_added,
                "passages": render("passage" if self.chunks_added == 1 else "passages", None, lang),
            },
            lang,
        )
        if self.warnings:
            joiner = "；" if lang == "zh" else "; "
            line = render(
                "upload_ok_warn", {"line": line, "warnings": joiner.join(w.text(lang) for w in self.warnings)}, lang
            )
        return line

    @property
    def message(self) -> str:
        return self.say("en")

    @property
    def error(self) -> str:
        """Why the file was refused, in English ("" when it was not)."""
        return self.failure.text("en") if self.failure else ""


IndexState = Literal["ready", "missing", "unavailable", "other_model"]


@dataclass(frozen=True)
class IndexStatus:
    """How a course's index looks to learners: ready (with counts), not built, or unreachable."""

    course_id: str
    state: IndexState
    files: int = 0
    chunks: int = 0
    detail: str = ""
    notice: Notice | None = None  # what to tell learners when it is not ready (other_model)
    damaged: tuple[str, ...] = ()  # indexed files whose stored chunks cannot be read (the next build repairs them)


@dataclass(frozen=True)
class EngineHealth:
    """What the instructor tab shows about the running engine."""

    stores: list[StoreHealth]
    answer_mode: str  # "llm" or "extractive"
    llm_model: str
    embedding_model: str
    embedding_backend: str
    sessions: int
