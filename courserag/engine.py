"""The orchestrator: question in, grounded answer with citations out.

It holds no algorithm of its own; it wires the parts together in order:
embed the question -> search the course store (filtered by course_id) and the session pool,
each by vector and by BM25 -> merge -> rerank -> pack to the token budget -> answer
(LLM when configured, extractive otherwise) -> citations. Failures of a service become
warnings on the answer, never an exception for the learner.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterator, Literal, Sequence

from courserag import ranking
from courserag.answering import ChatAnswerer, build_messages, extractive_answer, refusal_text
from courserag.chunking import chunk_sections, make_chunks
from courserag.courses import CourseDirectory, load_course_directory
from courserag.embedding import Embedder, get_embedder
from courserag.errors import CourseRagError, IngestError, LLMUnavailableError, StoreUnavailableError, FileTooLargeError
from courserag.followup import clean_rewrite, looks_like_followup, rewrite_followup, rewrite_messages
from courserag.packing import ContextItem, citation_dict, pack_context
from courserag.parsing import parse_bytes, safe_display_name
from courserag.records import ScoredChunk
from courserag.session_pool import SessionRegistry, UploadedFile
from courserag.settings import Settings, secret
from courserag.stores import build_store
from courserag.stores.base import CourseStore
from courserag.textnorm import is_chinese, word_tokens

log = logging.getLogger(__name__)

Scope = Literal["both", "course", "notes"]
SCOPES = ("both", "course", "notes")
LLM_REFUSAL_MARKER = "NOT_IN_MATERIALS"


@dataclass(frozen=True)
class Retrieval:
    """What retrieval found for one question, ready for the answerer."""

    question: str
    query: str
    items: list[ContextItem]
    warnings: list[str]
    retrieval_ms: float
    candidates: int


@dataclass
class Answer:
    """The result of one question; `to_json` is the CLI's `ask --json` contract."""

    question: str
    answer: str
    refused: bool
    items: list[ContextItem]
    warnings: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    mode: str = "extractive"
    query: str = ""
    course_id: str | None = None

    @property
    def citations(self) -> list[dict]:
        return [citation_dict(item) for item in self.items]

    def to_json(self) -> dict:
        return {
            "answer": self.answer,
            "refused": self.refused,
            "citations": self.citations,
            "warnings": list(self.warnings),
            "timings_ms": {k: round(v, 2) for k, v in self.timings_ms.items()},
            "mode": self.mode,
            "course_id": self.course_id,
            "query": self.query,
        }


@dataclass(frozen=True)
class UploadResult:
    """Per-file outcome shown in the upload status list."""

    name: str
    ok: bool
    chunks_added: int = 0
    units: int = 0
    doc_type: str = ""
    warnings: tuple[str, ...] = ()
    error: str = ""
    duplicate: bool = False

    @property
    def message(self) -> str:
        if not self.ok:
            return f"✗ {self.error}"
        if self.duplicate:
            return f"✓ {self.name}: already uploaded, nothing new to add"
        unit = {"pdf": "pages", "pptx": "slides", "ipynb": "cells", "docx": "paragraphs"}.get(self.doc_type, "lines")
        text = f"✓ {self.name}: {self.chunks_added} chunks added from {self.units} {unit}"
        if self.warnings:
            text += " (" + "; ".join(self.warnings) + ")"
        return text


class RagEngine:
    """Answers questions for one process; sessions are separated by session id."""

    def __init__(
        self,
        settings: Settings,
        directory: CourseDirectory,
        store: CourseStore,
        embedder: Embedder,
        sessions: SessionRegistry | None = None,
        answerer: ChatAnswerer | None = None,
        fallback_store: CourseStore | None = None,
    ):
        self.settings = settings
        self.directory = directory
        self.store = store
        self.fallback_store = fallback_store
        self.embedder = embedder
        self.answerer = answerer
        limits = settings.limits
        self.sessions = sessions or SessionRegistry(
            embedder.dim,
            idle_seconds=settings.session_idle_minutes * 60,
            max_chunks=limits.max_chunks_per_session,
            max_bytes=int(limits.max_session_mb * 1024 * 1024),
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> "RagEngine":
        """Wire the default parts from settings; nothing connects until first use."""
        directory = load_course_directory(settings.course_directory)
        embedder = get_embedder(*settings.embedder_args())
        store, fallback = build_store(settings, embedder.dim)
        answerer = None
        if settings.llm_enabled:
            answerer = ChatAnswerer(
                settings.llm_base_url,
                settings.llm_model,
                secret("LLM_API_KEY", required=False),
                timeout_s=settings.llm_timeout_s,
                max_tokens=settings.llm_max_tokens,
            )
        return cls(settings, directory, store, embedder, answerer=answerer, fallback_store=fallback)

    # -- uploads ------------------------------------------------------------------------

    def add_upload(self, session_id: str, path: Path, display_name: str | None = None) -> UploadResult:
        """Parse, chunk, embed and index one uploaded file into the session's pool."""
        name = safe_display_name(display_name or Path(path).name)
        limits = self.settings.limits
        try:
            size = Path(path).stat().st_size
            if size > limits.max_file_mb * 1024 * 1024:
                raise FileTooLargeError(name, f"the file is {size / 1024 / 1024:.1f} MB; the limit is {limits.max_file_mb:.0f} MB")
            pool = self.sessions.get(session_id)
            pool.check_room(size, name)
            data = Path(path).read_bytes()
            file_hash = hashlib.sha256(data).hexdigest()
            existing = pool.files.get(name)
            if existing and existing.file_hash == file_hash:
                return UploadResult(name, True, 0, existing.units, existing.doc_type, duplicate=True)
            parsed = parse_bytes(data, name, limits)
            pieces = chunk_sections(parsed.sections, self.settings.chunk_size, self.settings.chunk_overlap)
            chunks = make_chunks(pieces, name, "upload", None, parsed.doc_type, file_hash)
            if not chunks:
                raise IngestError(name, "no text could be extracted from this file")
            if len(chunks) > limits.max_chunks_per_file:
                raise FileTooLargeError(name, f"it yields {len(chunks)} chunks; the limit is {limits.max_chunks_per_file}")
            uploaded = UploadedFile(name, file_hash, parsed.doc_type, len(chunks), parsed.units, size, tuple(parsed.warnings))
            added = pool.add_file(uploaded, chunks, self._embed_texts)
            return UploadResult(name, True, added, parsed.units, parsed.doc_type, tuple(parsed.warnings))
        except CourseRagError as exc:
            return UploadResult(name, False, error=str(exc))
        except OSError as exc:
            return UploadResult(name, False, error=f"{name}: the file could not be read ({exc.strerror or 'I/O error'})")

    def remove_upload(self, session_id: str, name: str) -> bool:
        pool = self.sessions.peek(session_id)
        return bool(pool and pool.remove_file(name))

    def uploads(self, session_id: str) -> list[UploadedFile]:
        pool = self.sessions.peek(session_id)
        return list(pool.files.values()) if pool else []

    def end_session(self, session_id: str) -> None:
        self.sessions.release(session_id)

    def _embed_texts(self, texts: list[str]):
        return self.embedder.embed_batch(texts, self.settings.embedding_batch_size)

    # -- retrieval ----------------------------------------------------------------------

    def _search_course(self, course_id: str, vector, tokens, n: int, warnings: list[str]):
        """Vector and BM25 hits from the course store, falling back to the local copy."""
        for store in (self.store, self.fallback_store):
            if store is None:
                continue
            try:
                if self.settings.weaviate_search == "hybrid" and hasattr(store, "hybrid_search"):
                    # Weaviate fuses BM25 and vector itself; its fused score is the lexical signal.
                    fused = store.hybrid_search(course_id, tokens, vector, n)
                    return [], [replace(h, lexical=h.score) for h in fused]
                return store.vector_search(course_id, vector, n), store.lexical_search(course_id, tokens, n)
            except StoreUnavailableError as exc:
                log.warning("course store %s failed: %s", store.name, exc)
                other = " and the local copy" if store is self.store and self.fallback_store else ""
                warnings.append(
                    f"The course knowledge base ({store.name}) is unavailable right now: {exc}. "
                    f"Answering from your notes{other} only."
                )
        return [], []

    def _standalone_query(self, question: str, history: Sequence[str]) -> str:
        """The retrieval query for a follow-up: the LLM's rewrite when one is configured,
        the heuristic otherwise (or when the LLM fails)."""
        if self.answerer is not None and history and looks_like_followup(question):
            try:
                return clean_rewrite(question, self.answerer.complete(rewrite_messages(question, history)))
            except LLMUnavailableError as exc:
                log.info("follow-up rewrite fell back to the heuristic: %s", exc)
        return rewrite_followup(question, history)

    def retrieve(
        self,
        course_id: str,
        question: str,
        session_id: str | None = None,
        scope: Scope = "both",
        history: Sequence[str] = (),
    ) -> Retrieval:
        """Everything before the answer: embed, search both paths, fuse, rerank, pack."""
        self.directory.get(course_id)  # UnknownCourseError before any work
        if scope not in SCOPES:
            raise ValueError(f"scope must be one of {SCOPES}, but got {scope!r}")
        started = time.perf_counter()
        cfg = self.settings.retrieval
        query = self._standalone_query(question, history)
        tokens = word_tokens(query)
        vector = self.embedder.embed_query(query)
        n = max(cfg.candidate_multiplier * cfg.top_k, cfg.min_candidates if cfg.fusion == "hybrid" else 0)
        warnings: list[str] = []
        vector_lists: list[list[ScoredChunk]] = []
        lexical_lists: list[list[ScoredChunk]] = []
        if scope in ("both", "course"):
            course_vec, course_lex = self._search_course(course_id, vector, tokens, n, warnings)
            vector_lists.append(course_vec)
            lexical_lists.append(course_lex)
        pool = self.sessions.peek(session_id) if scope in ("both", "notes") else None
        if pool is not None and len(pool):
            vector_lists.append(pool.vector_search(vector, n))
            lexical_lists.append(pool.lexical_search(tokens, n))
        candidates = ranking.merge_candidates(vector_lists, lexical_lists)
        chinese = is_chinese(query)
        if cfg.fusion == "reference":
            ranked = ranking.rerank_reference(
                candidates, tokens, cfg.top_k, cfg.vector_weight, cfg.overlap_weight,
                cfg.similarity_threshold, cfg.weak_vector_threshold,
            )
        else:
            ranked = ranking.rerank_hybrid(
                candidates, tokens, ranking.extract_identifiers(query), chinese, cfg.top_k,
                cfg.similarity_threshold, cfg.relevance_threshold, cfg.chinese_relevance_threshold,
            )
        items = pack_context(
            ranked, self.embedder.count_tokens, self.embedder.truncate_to_tokens,
            cfg.max_chunk_tokens, cfg.context_token_budget,
        )
        elapsed = (time.perf_counter() - started) * 1000
        return Retrieval(question, query, items, warnings, elapsed, len(candidates))

    # -- answers ------------------------------------------------------------------------

    def answer_stream(
        self,
        course_id: str,
        question: str,
        session_id: str | None = None,
        scope: Scope = "both",
        history: Sequence[str] = (),
    ) -> Iterator[str | Answer]:
        """Yield the growing answer text while it streams, then the final Answer."""
        started = time.perf_counter()
        question = question.strip()
        if not question:
            raise CourseRagError("please type a question")
        limit = self.settings.limits.max_question_chars
        if len(question) > limit:
            # Checked before any work: a megabyte "question" would hold an answer slot for seconds.
            raise CourseRagError(f"your question is {len(question)} characters long; please keep it under {limit}")
        retrieval = self.retrieve(course_id, question, session_id, scope, history)
        answer_started = time.perf_counter()
        warnings = list(retrieval.warnings)
        answer = Answer(question, "", False, retrieval.items, warnings, query=retrieval.query, course_id=course_id)
        if not retrieval.items:
            answer.answer, answer.refused, answer.mode = refusal_text(question), True, "refusal"
        elif self.answerer is not None:
            text = ""
            try:
                for delta in self.answerer.stream(build_messages(question, retrieval.items)):
                    text += delta
                    if not LLM_REFUSAL_MARKER.startswith(text.strip()[: len(LLM_REFUSAL_MARKER)]):
                        yield text
                if LLM_REFUSAL_MARKER in text:
                    answer.answer, answer.refused, answer.mode = refusal_text(question), True, "refusal"
                else:
                    answer.answer, answer.mode = text.strip(), "llm"
            except LLMUnavailableError as exc:
                warnings.append(f"{exc}; showing the most relevant passages instead.")
                answer.answer = self._extractive(question, retrieval)
        else:
            answer.answer = self._extractive(question, retrieval)
        if not answer.answer:
            answer.answer, answer.refused, answer.mode = refusal_text(question), True, "refusal"
        if answer.refused:
            answer.items = []
        now = time.perf_counter()
        answer.timings_ms = {
            "retrieval": retrieval.retrieval_ms,
            "answer": (now - answer_started) * 1000,
            "total": (now - started) * 1000,
        }
        yield answer

    def _extractive(self, question: str, retrieval: Retrieval) -> str:
        query_vector = self.embedder.embed_query(retrieval.query)

        def similarity(sentences: list[str]):
            return self.embedder.embed_batch(sentences, self.settings.embedding_batch_size) @ query_vector

        return extractive_answer(question, retrieval.items, similarity=similarity)

    def ask(
        self,
        course_id: str,
        question: str,
        session_id: str | None = None,
        scope: Scope = "both",
        history: Sequence[str] = (),
    ) -> Answer:
        """The whole answer at once (CLI, batch, tests)."""
        final = None
        for update in self.answer_stream(course_id, question, session_id, scope, history):
            final = update
        assert isinstance(final, Answer)
        return final
