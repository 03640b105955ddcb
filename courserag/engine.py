"""The orchestrator: question in, grounded answer with citations out.

It holds no algorithm of its own; it wires the parts together in order:
embed the question -> search the course store (filtered by course_id) and the session pool,
each by vector and by BM25 -> merge -> rank -> pack to the token budget -> answer
(LLM when configured, extractive otherwise) -> citations. Failures of a service become
notices on the answer, never an exception for the learner.

Callers (the UI, the CLI, the instructor tools) ask the engine questions through its public
methods; none of them touches its parts.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from pathlib import Path
from typing import Callable, Iterator, Literal, Sequence

from courserag import ranking
from courserag.answering import ChatAnswerer, build_messages
from courserag.codes import CodeCheck, check_codes, own_codes
from courserag.calibration import BACKGROUND, floor_of
from courserag.courses import Course, CourseDirectory, load_course_directory
from courserag.directory_facts import DirectoryFacts, directory_chunks, keep_material
from courserag.embedders import Embedder, get_embedder
from courserag.errors import CourseRagError, EmbeddingSpaceError, IngestError, LLMUnavailableError, QuestionError, StoreUnavailableError
from courserag.answer_text import refuse, write_extractive
from courserag.bridge import english_words, load_dictionary
from courserag.feedback import FeedbackLog
from courserag.gap_rules import refusal_is_gap
from courserag.followup import clean_rewrite, looks_like_followup, rewrite_followup, rewrite_messages
from courserag.indexer import BuildSummary, build_course
from courserag.ingest import IngestConfig, file_size, ingest_file
from courserag.messages import Notice
from courserag.packing import pack_context
from courserag.parsers import safe_display_name
from courserag.parsers.sandbox import ParseJob
from courserag.ranking import RankQuery, Ranker, ranker_for
from courserag.records import ScoredChunk
from courserag.sentences import with_sentences
from courserag.results import Answer, EngineHealth, IndexStatus, Retrieval, UploadResult
from courserag.session_pool import SessionPool, SessionRegistry, UploadedFile, UploadGate, estimate_bytes
from courserag.settings import Settings, secret
from courserag.stores import build_store, store_healths
from courserag.stores.base import CourseStore, FileRecord
from courserag.textnorm import is_chinese, word_tokens
from courserag.upload_progress import PendingUpload, PendingUploads, UploadProgress, embed_with_progress

log = logging.getLogger(__name__)

Scope = Literal["both", "course", "notes"]
SCOPES = ("both", "course", "notes")
LLM_REFUSAL_MARKER = "NOT_IN_MATERIALS"
BuildProgress = Callable[[int, int, str], None]

__all__ = ["Answer", "RagEngine", "Retrieval", "UploadResult", "SCOPES", "Scope"]


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
        ranker: Ranker | None = None,
        gap_log: FeedbackLog | None = None,
    ):
        self.settings = settings
        self.directory = directory
        self.store = store
        self.embedder = embedder
        self.answerer = answerer
        self.ranker = ranker or ranker_for(settings.retrieval)
        self.gap_log = gap_log
        limits = settings.limits
        self.sessions = sessions or SessionRegistry(
            embedder.dim,
            idle_seconds=settings.session_idle_minutes * 60,
            max_chunks=limits.max_chunks_per_session,
            max_bytes=int(limits.max_session_mb * 1024 * 1024),
            max_sessions=settings.server.max_sessions,
            max_memory_bytes=int(settings.server.max_pool_memory_mb * 1024 * 1024),
        )
        self.upload_gate = UploadGate(settings.parse.workers)
        self._build_lock = threading.Lock()
        self._pending = PendingUploads()
        self._background = None  # vectors of calibration.BACKGROUND, embedded on first use
        self._background_lock = threading.Lock()
        self._directory = DirectoryFacts()  # the courses' directory fields as passages

    @classmethod
    def from_settings(cls, settings: Settings) -> "RagEngine":
        """Wire the default parts from settings; nothing connects or loads a model here."""
        directory = load_course_directory(settings.course_directory)
        embedder = get_embedder(*settings.embedder_args())
        store = build_store(settings, embedder.dim)
        answerer = None
        if settings.llm_enabled:
            answerer = ChatAnswerer(
                settings.llm_base_url,
                settings.llm_model,
                secret("LLM_API_KEY", required=False) or secret("HF_TOKEN", required=False),
                timeout_s=settings.llm_timeout_s,
                max_tokens=settings.llm_max_tokens,
                deadline_s=settings.llm_deadline_s,
                max_answer_chars=settings.llm_max_answer_chars,
            )
        return cls(settings, directory, store, embedder, answerer=answerer, gap_log=FeedbackLog(settings.data_dir))

    # -- courses and the index ------------------------------------------------------------

    @property
    def courses(self) -> tuple[Course, ...]:
        return self.directory.courses

    def course(self, course_id: str) -> Course:
        """The course, or UnknownCourseError naming the known ids."""
        return self.directory.get(course_id)

    def reload_courses(self) -> None:
        """Read the course directory again (after an instructor edited a course's name,
        description or examples); ConfigError leaves the current one in place."""
        self.directory = load_course_directory(self.settings.course_directory)

    def index_status(self, course_id: str) -> IndexStatus:
        """Whether the course can be searched, and how much it holds; never raises for the store."""
        self.course(course_id)
        try:
            chunks = self.store.count(course_id)
            if not chunks:
                return IndexStatus(course_id, "missing")
            files = len(self.store.files(course_id))
            built = self.store.index_model(course_id)
            if built is not None and built != self.settings.embedding_model:
                error = EmbeddingSpaceError(course_id, built, self.settings.embedding_model)
                return IndexStatus(course_id, "other_model", files, chunks, str(error), error.notice)
            return IndexStatus(course_id, "ready", files, chunks, damaged=tuple(sorted(self.store.unreadable_files(course_id))))
        except Exception as exc:  # noqa: BLE001 - any store failure is shown, never raised
            return IndexStatus(course_id, "unavailable", detail=str(exc) or type(exc).__name__)

    def course_files(self, course_id: str) -> list[FileRecord]:
        """The indexed files of a course, by path (StoreUnavailableError when unreachable)."""
        self.course(course_id)
        return sorted(self.store.files(course_id).values(), key=lambda record: record.source)

    def build_course(self, course_id: str, rebuild: bool = False, progress: BuildProgress | None = None) -> BuildSummary | None:
        """Bring the course's index in line with its folder; None when another build runs."""
        course = self.course(course_id)
        if not self._build_lock.acquire(blocking=False):
            return None
        try:
            return build_course(course, self.store, self.embedder, self.settings, rebuild, False, progress)
        finally:
            self._build_lock.release()

    def health(self) -> EngineHealth:
        """Stores, answer mode, model and sessions, for the instructor tab; never raises."""
        return EngineHealth(
            stores=store_healths(self.store),
            answer_mode="llm" if self.answerer is not None else "extractive",
            llm_model=self.settings.llm_model,
            embedding_model=self.settings.embedding_model,
            embedding_backend=self.settings.embedding_backend,
            sessions=len(self.sessions),
        )

    def warm_up(self) -> None:
        """Load the model, the Chinese segmenter and the dictionary now rather than on the first question."""
        self.embedder.embed_query("warm up")
        word_tokens("预热")
        load_dictionary()

    # -- uploads ------------------------------------------------------------------------

    def add_upload(
        self, session_id: str, path: Path, display_name: str | None = None, progress: UploadProgress | None = None
    ) -> UploadResult:
        """Parse, chunk, embed and index one uploaded file into the session's pool.

        Uploads take turns (`UploadGate`: a few at a time, one per session, sessions in turn);
        every attempt, refused or not, is charged to the session's reading budget. Until it is
        searchable the file is listed by `pending_uploads`, and `progress` (when given) hears
        each step: reading, then indexing with units (pages…) done of total.
        """
        name = safe_display_name(display_name or Path(path).name)

        def report(pending: PendingUpload) -> None:
            self._pending.set(session_id, pending)
            if progress is not None:
                progress(pending)

        report(PendingUpload(name))
        try:
            return self._add_upload(session_id, path, name, report)
        finally:
            self._pending.finish(session_id, name)

    def _add_upload(self, session_id: str, path: Path, name: str, report: UploadProgress) -> UploadResult:
        limits = self.settings.limits
        try:
            size = file_size(path, name, limits)
            pool = self.sessions.get(session_id)
            pool.check_room(size, name)
            pool.check_budget(name, limits.max_session_files, limits.max_session_parse_s)
            with self.upload_gate.turn(session_id):
                return self._ingest_upload(pool, Path(path), name, size, report)
        except CourseRagError as exc:
            return UploadResult(name, False, failure=exc.notice)
        except OSError as exc:
            error = IngestError(name, "file_unreadable", detail=exc.strerror or "I/O error")
            return UploadResult(name, False, failure=error.notice)

    def pending_uploads(self, session_id: str | None) -> list[PendingUpload]:
        """The session's files that are being read or indexed (not searchable yet)."""
        return self._pending.of(session_id)

    def _ingest_upload(self, pool: SessionPool, path: Path, name: str, size: int, report: UploadProgress) -> UploadResult:
        limits = self.settings.limits
        pool.check_budget(name, limits.max_session_files, limits.max_session_parse_s)  # again: we may have waited
        data = path.read_bytes()
        file_hash = hashlib.sha256(data).hexdigest()
        existing = pool.files.get(name)
        if existing and existing.file_hash == file_hash:
            return UploadResult(name, True, 0, existing.units, existing.doc_type, duplicate=True, unit=existing.unit)
        known = pool.failures.get(file_hash)
        if known is not None:  # the same bytes were refused before: say so again, without reading them
            pool.charge(0.0)
            raise IngestError(name, known.code, **known.params)
        job = ParseJob()
        pool.jobs.add(job)
        started = time.monotonic()
        try:
            config = IngestConfig.of(self.settings, self.embedder)
            ingested = ingest_file(data, name, config, origin="upload", file_hash=file_hash, job=job)
        except IngestError as exc:
            if exc.reason_notice.code != "upload_cancelled":
                pool.remember_failure(file_hash, exc.reason_notice)
            raise
        finally:
            pool.charge(time.monotonic() - started)
            pool.jobs.discard(job)
        self.sessions.check_memory(estimate_bytes(ingested.chunks, self.embedder.dim), name)
        uploaded = UploadedFile(
            name, file_hash, ingested.doc_type, len(ingested.chunks), ingested.units, size, ingested.warnings, ingested.unit
        )
        indexing = PendingUpload(name, "indexing", 0, ingested.units, ingested.unit)
        report(indexing)
        added = pool.add_file(uploaded, ingested.chunks, embed_with_progress(self._embed_texts, indexing, report))
        return UploadResult(name, True, added, ingested.units, ingested.doc_type, ingested.warnings, unit=ingested.unit)

    def remove_upload(self, session_id: str, name: str) -> bool:
        pool = self.sessions.peek(session_id)
        return bool(pool and pool.remove_file(name))

    def uploads(self, session_id: str | None) -> list[UploadedFile]:
        pool = self.sessions.peek(session_id)
        return list(pool.files.values()) if pool else []

    def end_session(self, session_id: str) -> None:
        self.sessions.release(session_id)

    def _embed_texts(self, texts: list[str]):
        return self.embedder.embed_batch(texts, self.settings.embedding_batch_size)

    # -- retrieval ----------------------------------------------------------------------

    def _search_course(self, course_id: str, vector, tokens, n: int, notices: list[Notice]):
        """Both candidate lists from the course store; an unreachable store is a notice."""
        try:
            hits = self.store.search(course_id, vector, tokens, n)
        except StoreUnavailableError as exc:
            log.warning("course store %s failed: %s", self.store.name, exc)
            notices.append(Notice("course_store_down", {"store": self.store.name, "detail": str(exc), "rest": Notice("rest_notes")}))
            return [], []
        notices.extend(hits.notices)
        return hits.vector, hits.lexical

    def _best_sentences(self, course_id: str, pool: SessionPool | None, candidates: Sequence[ScoredChunk], vector) -> dict[str, float]:
        """The candidates' best sentence similarities (sentences.py), from the course store
        and the session's pool; a store that fails here only costs the signal."""
        course_ids = [c.chunk.id for c in candidates if c.chunk.origin == "course"]
        upload_ids = [c.chunk.id for c in candidates if c.chunk.origin != "course"]
        best: dict[str, float] = {}
        if course_ids:
            try:
                best.update(self.store.best_sentences(course_id, course_ids, vector))
            except StoreUnavailableError as exc:
                log.warning("sentence scores of course %s failed: %s", course_id, exc)
        if pool is not None and upload_ids:
            best.update(pool.best_sentences(upload_ids, vector))
        return best

    def _standalone_query(self, question: str, history: Sequence[object]) -> str:
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
        history: Sequence[object] = (),
    ) -> Retrieval:
        """Everything before the answer: embed, search both paths, fuse, rank, pack."""
        course = self.course(course_id)  # UnknownCourseError before any work
        if scope not in SCOPES:
            raise QuestionError("bad_scope", scope=scope)
        started = time.perf_counter()
        cfg = self.settings.retrieval
        query = self._standalone_query(question, history)
        tokens = word_tokens(query)
        query_is_chinese = is_chinese(query)
        across = query_is_chinese != (course.language == "zh")  # a Chinese question in an English course, say
        vector = self.embedder.embed_query_for(query, across)
        # BM25 also looks for the English of a Chinese question's words (bridge.py).
        search_tokens = tokens + english_words(query) if across and query_is_chinese and cfg.bridge else tokens
        n = max(cfg.candidate_multiplier * cfg.top_k, cfg.min_candidates if self.ranker.name == "hybrid" else 0)
        notices: list[Notice] = []
        vector_lists: list[list[ScoredChunk]] = []
        lexical_lists: list[list[ScoredChunk]] = []
        if scope in ("both", "course"):
            course_vec, course_lex = self._search_course(course_id, vector, search_tokens, n, notices)
            course_vec, course_lex = self._directory.offer(course, self._embed_texts, vector, tokens, course_vec, course_lex)
            vector_lists.append(course_vec)
            lexical_lists.append(course_lex)
        pool = self.sessions.peek(session_id) if scope in ("both", "notes") else None
        if pool is not None and len(pool):
            vector_lists.append(pool.vector_search(vector, n))
            lexical_lists.append(pool.lexical_search(search_tokens, n))
        candidates = ranking.merge_candidates(vector_lists, lexical_lists)
        if self.ranker.name == "hybrid" and cfg.sentence_weight > 0:  # the reference design has no use for it
            candidates = with_sentences(candidates, self._best_sentences(course_id, pool, candidates, vector))
        floor = self._floor(vector)
        # The course's own code names the course, not a fact: it must not lift every chunk
        # that mentions it above the one that answers.
        identifiers = ranking.extract_identifiers(query) - own_codes(course)
        rank_query = RankQuery(tuple(tokens), identifiers, query_is_chinese, floor, self.embedder.reads_chinese)
        ranked = keep_material(self.ranker.rank(candidates, rank_query, cfg.top_k + len(directory_chunks(course))), cfg.top_k)
        items = pack_context(
            ranked, self.embedder.count_tokens, self.embedder.truncate_to_tokens,
            cfg.max_chunk_tokens, cfg.context_token_budget,
        )
        elapsed = (time.perf_counter() - started) * 1000
        return Retrieval(question, query, items, notices, elapsed, len(candidates), across, vector, floor)

    def _floor(self, query_vector) -> float:
        """The question's similarity to text that does not answer it (calibration.py)."""
        with self._background_lock:
            if self._background is None:
                self._background = self.embedder.embed_batch(list(BACKGROUND), self.settings.embedding_batch_size)
        return floor_of(query_vector, self._background).mean

    # -- answers ------------------------------------------------------------------------

    def _check_question(self, question: str) -> str:
        question = question.strip()
        if not question:
            raise QuestionError("empty_question")
        limit = self.settings.limits.max_question_chars
        if len(question) > limit:
            # Checked before any work: a megabyte "question" would hold an answer slot for seconds.
            raise QuestionError("question_too_long", chars=len(question), limit=limit)
        return question

    def answer_stream(
        self,
        course_id: str,
        question: str,
        session_id: str | None = None,
        scope: Scope = "both",
        history: Sequence[object] = (),
        learner: bool = True,
    ) -> Iterator[str | Answer]:
        """Yield the growing answer text while it streams, then the final Answer. `learner`
        False (an instructor's batch test) logs no content gap and no citation."""
        started = time.perf_counter()
        question = self._check_question(question)
        retrieval = self.retrieve(course_id, question, session_id, scope, history)
        answer_started = time.perf_counter()
        answer = Answer(question, "", False, retrieval.items, list(retrieval.notices), query=retrieval.query, course_id=course_id)
        codes = check_codes(retrieval.query, self.course(course_id), self.directory)
        redirected = codes.about_another_course
        if codes.about_another_course:
            code, other = codes.other_courses[0]
            refuse(answer, "answer_other_course", code=code, name=other.name)
        elif not retrieval.items:
            refuse(answer, "answer_not_found")
        elif self.answerer is not None:
            yield from self._llm_answer(question, retrieval, answer, codes, history)
        else:
            self._extractive(answer, retrieval, codes)
        if answer.refused:
            answer.items = []
        now = time.perf_counter()
        answer.timings_ms = {
            "retrieval": retrieval.retrieval_ms,
            "answer": (now - answer_started) * 1000,
            "total": (now - started) * 1000,
        }
        if learner:  # an instructor's batch test feeds neither the gaps nor "most-cited files"
            self._log_gaps(answer, scope, session_id, redirected)
        yield answer

    def _llm_answer(
        self, question: str, retrieval: Retrieval, answer: Answer, codes: CodeCheck, history: Sequence[object] = ()
    ) -> Iterator[str]:
        """Stream the LLM's answer into `answer`; on failure fall back to the extractive one."""
        text = ""
        try:
            for delta in self.answerer.stream(build_messages(question, retrieval.items, history)):
                text += delta
                if not LLM_REFUSAL_MARKER.startswith(text.strip()[: len(LLM_REFUSAL_MARKER)]):
                    yield text
            if LLM_REFUSAL_MARKER in text:
                refuse(answer, "answer_not_found")
            else:
                answer.answer, answer.mode = text.strip(), "llm"
        except LLMUnavailableError as exc:
            answer.notices.append(Notice("llm_fallback", {"reason": exc.notice}))
            self._extractive(answer, retrieval, codes)

    def _log_gaps(self, answer: Answer, scope: str, session_id: str | None = None, redirected: bool = False) -> None:
        """Refused questions and cited course files feed the instructor's content-gap view.

        Which refusals are course gaps is gap_rules.refusal_is_gap's to say (not one about
        the learner's notes, a redirect to another course, or one asked while some of their
        notes were still being indexed)."""
        if self.gap_log is None:
            return
        try:
            pending = scope == "both" and bool(self.pending_uploads(session_id))
            if answer.refused and refusal_is_gap(answer.question, scope=scope, redirected=redirected, pending=pending):
                self.gap_log.log_refused(answer.question, answer.course_id, scope)
            elif not answer.refused:
                self.gap_log.log_citations(answer.course_id, answer.citations, answer.answer)
        except OSError:
            log.exception("could not write the content-gap logs")

    def _extractive(self, answer: Answer, retrieval: Retrieval, codes: CodeCheck) -> None:
        """Quote the units that answer, or refuse and point at the nearest source."""

        def similarity(texts: list[str]):
            vectors = self.embedder.embed_passages_for(texts, retrieval.across_languages, self.settings.embedding_batch_size)
            return vectors @ retrieval.vector

        write_extractive(answer, retrieval, codes, self.course(answer.course_id), similarity, self.embedder.word_vectors)

    def ask(
        self,
        course_id: str,
        question: str,
        session_id: str | None = None,
        scope: Scope = "both",
        history: Sequence[object] = (),
        learner: bool = True,
    ) -> Answer:
        """The whole answer at once (CLI, batch, tests); `learner` as in answer_stream."""
        final = None
        for update in self.answer_stream(course_id, question, session_id, scope, history, learner=learner):
            final = update
        assert isinstance(final, Answer)
        return final

