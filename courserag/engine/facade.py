"""The engine's façade: question in, grounded answer with citations out.

It holds no algorithm of its own. It wires the parts (`EngineParts`) and hands each call to
the service that owns it: uploads to `UploadService`, retrieval to `Retriever`, answering to
`AnswerRouter`; course and index administration is the little that stays here.

Callers (the UI, the CLI, the instructor tools) talk to the engine through these public
methods only; none of them touches the services or the parts.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Callable, Iterator, Sequence

from courserag.answers.llm import ChatAnswerer
from courserag.catalog.load import CatalogSource
from courserag.config.settings import Settings, secret
from courserag.courses.directory import Course, CourseDirectory, load_course_directory, load_or_last_good, remember_good
from courserag.courses.indexer import BuildSummary, build_course
from courserag.embedders import Embedder, get_embedder, vector_space
from courserag.engine.catalog_path import CatalogPath
from courserag.engine.materials_path import MaterialsPath
from courserag.engine.parts import EngineParts
from courserag.engine.requests import SCOPES, Question, Scope
from courserag.engine.retriever import Retriever
from courserag.engine.router import AnswerRouter
from courserag.engine.uploads import UploadService
from courserag.errors import EmbeddingSpaceError
from courserag.ingest.progress import PendingUpload, UploadProgress
from courserag.instructor.feedback import FeedbackLog
from courserag.lang.bridge import load_dictionary
from courserag.lang.textnorm import word_tokens
from courserag.results import Answer, EngineHealth, IndexStatus, Retrieval, UploadResult
from courserag.retrieval.ranking import Ranker, ranker_for
from courserag.retrieval.session_pool import SessionRegistry, UploadedFile, UploadGate
from courserag.stores import build_store, store_healths
from courserag.stores.base import CourseStore, FileRecord

BuildProgress = Callable[[int, int, str], None]

__all__ = ["Answer", "RagEngine", "Retrieval", "UploadResult", "SCOPES", "Scope"]


def _swappable(name: str) -> property:
    """An attribute that lives in the shared parts, so replacing it reaches every service."""
    return property(lambda self: getattr(self.parts, name), lambda self, value: setattr(self.parts, name, value))


class RagEngine:
    """Answers questions for one process; sessions are separated by session id."""

    settings = _swappable("settings")
    directory = _swappable("directory")
    store = _swappable("store")
    embedder = _swappable("embedder")
    sessions = _swappable("sessions")
    ranker = _swappable("ranker")
    answerer = _swappable("answerer")
    gap_log = _swappable("gap_log")

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
        self.parts = EngineParts(
            settings,
            directory,
            store,
            embedder,
            sessions=sessions or _session_registry(settings, embedder.dim),
            ranker=ranker or ranker_for(settings.retrieval),
            answerer=answerer,
            gap_log=gap_log,
        )
        self._uploads = UploadService(self.parts)
        self._retriever = Retriever(self.parts)
        self._router = AnswerRouter(self.parts, self._uploads.pending)
        self.catalog = CatalogSource(settings.catalog)  # the official catalog, read on first use
        self._materials = MaterialsPath(self.parts, self._retriever, self._router)
        self._catalog = CatalogPath(self.parts, self.catalog, self._materials)
        self._build_lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> "RagEngine":
        """Wire the default parts from settings; nothing connects or loads a model here."""
        directory = load_or_last_good(settings.course_directory, settings.data_dir)  # a broken file: the last good copy
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
        remember_good(self.settings.course_directory, self.settings.data_dir)

    def index_status(self, course_id: str) -> IndexStatus:
        """Whether the course can be searched, and how much it holds; never raises for the store."""
        self.course(course_id)
        try:
            chunks = self.store.count(course_id)
            if not chunks:
                return IndexStatus(course_id, "missing")
            files = len(self.store.files(course_id))
            built, space = (
                self.store.index_model(course_id),
                vector_space(self.settings.embedding_model, self.settings.embedding_backend),
            )
            if built is not None and built != space:
                error = EmbeddingSpaceError(course_id, built, space)
                return IndexStatus(course_id, "other_model", files, chunks, str(error), error.notice)
            return IndexStatus(
                course_id, "ready", files, chunks, damaged=tuple(sorted(self.store.unreadable_files(course_id)))
            )
        except Exception as exc:  # noqa: BLE001 - any store failure is shown, never raised
            return IndexStatus(course_id, "unavailable", detail=str(exc) or type(exc).__name__)

    def course_files(self, course_id: str) -> list[FileRecord]:
        """The indexed files of a course, by path (StoreUnavailableError when unreachable)."""
        self.course(course_id)
        return sorted(self.store.files(course_id).values(), key=lambda record: record.source)

    def build_course(
        self, course_id: str, rebuild: bool = False, progress: BuildProgress | None = None
    ) -> BuildSummary | None:
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
        """Load the model, the Chinese segmenter, the dictionary and the reader (converting it
        once) now rather than on the first question."""
        self.embedder.embed_query("warm up")
        word_tokens("预热")
        load_dictionary()
        if self.parts.reading is not None:
            self.parts.reading.reader.read("warm up", ["warm up"])

    # -- uploads (UploadService) ----------------------------------------------------------

    def add_upload(
        self,
        session_id: str,
        path: Path,
        display_name: str | None = None,
        progress: UploadProgress | None = None,
        client: str | None = None,
    ) -> UploadResult:
        """Parse, chunk, embed and index one uploaded file into the session's pool; `client`
        is who asked (the UI's client address), so turns are fair between clients too."""
        return self._uploads.add(session_id, path, display_name, progress, client)

    @property
    def upload_gate(self) -> UploadGate:
        """The uploads' turn-taking (a few at a time, fair between clients and sessions)."""
        return self._uploads.gate

    def pending_uploads(self, session_id: str | None) -> list[PendingUpload]:
        """The session's files that are being read or indexed (not searchable yet)."""
        return self._uploads.pending(session_id)

    def remove_upload(self, session_id: str, name: str) -> bool:
        return self._uploads.remove(session_id, name)

    def uploads(self, session_id: str | None) -> list[UploadedFile]:
        return self._uploads.files(session_id)

    def end_session(self, session_id: str) -> None:
        self.sessions.release(session_id)

    # -- questions (Retriever, AnswerRouter) ----------------------------------------------

    def retrieve(
        self,
        course_id: str,
        question: str,
        *,
        session_id: str | None = None,
        scope: Scope = "both",
        history: Sequence[object] = (),
    ) -> Retrieval:
        """Everything before the answer: embed, search both paths, fuse, rank, pack."""
        course = self.course(course_id)  # UnknownCourseError before any work
        return self._retriever.retrieve(Question(course_id, question, session_id, scope, history), course)

    def check_question(self, question: str) -> str:
        """The question as it will be asked (surrounding space removed), or QuestionError
        (empty, too long): the one check, which the UI also asks before showing a turn."""
        return self._router.check(question)

    def answer_stream(
        self,
        course_id: str,
        question: str,
        *,
        session_id: str | None = None,
        scope: Scope = "both",
        history: Sequence[object] = (),
        learner: bool = True,
    ) -> Iterator[str | Answer]:
        """Yield the growing answer text while it streams, then the final Answer.

        A catalog question (credits, prerequisites, sections, programs… of any course in the
        catalog) is read by the catalog first; its answer about one course competes with the
        materials and the notes in retrieval (engine/catalog_path.py)."""
        started = time.perf_counter()
        request = Question(course_id, self.check_question(question), session_id, scope, history, learner)
        reply = self._catalog.reply(request)
        updates = (
            self._catalog.stream(reply, request, started)
            if reply is not None
            else self._materials.stream(request, started)
        )
        try:
            for update in updates:
                # A catalog that failed its checks is said in every answer (`warnings`).
                yield self._catalog.noted(update) if isinstance(update, Answer) else update
        finally:
            updates.close()  # as `yield from` would: a stream left early stops at once

    def ask(
        self,
        course_id: str,
        question: str,
        *,
        session_id: str | None = None,
        scope: Scope = "both",
        history: Sequence[object] = (),
        learner: bool = True,
    ) -> Answer:
        """The whole answer at once (CLI, batch, tests); `learner` False for an instructor's
        batch test (no content gap, no citation logged)."""
        final = None
        stream = self.answer_stream(
            course_id, question, session_id=session_id, scope=scope, history=history, learner=learner
        )
        for update in stream:
            final = update
        assert isinstance(final, Answer)
        return final


def _session_registry(settings: Settings, dim: int) -> SessionRegistry:
    """The upload pools of every session, within the configured caps."""
    limits, server = settings.limits, settings.server
    return SessionRegistry(
        dim,
        idle_seconds=settings.session_idle_minutes * 60,
        max_chunks=limits.max_chunks_per_session,
        max_bytes=int(limits.max_session_mb * 1024 * 1024),
        max_sessions=server.max_sessions,
        max_memory_bytes=int(server.max_pool_memory_mb * 1024 * 1024),
    )
