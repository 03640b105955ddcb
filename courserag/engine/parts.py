"""The parts the engine's services share, read at call time.

The app and the tests may swap one after construction (an LLM client, a memoising
embedder, a store that is down), so every service reads them from here rather than keeping
its own copy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from courserag.answers.extractive.read import ReadingAnswerer
from courserag.answers.extractive.read_calibration import ReaderCalibration
from courserag.answers.llm import ChatAnswerer
from courserag.config.settings import Settings
from courserag.courses.directory import CourseDirectory
from courserag.embedders import Embedder
from courserag.embedders.groups import GroupVectors
from courserag.instructor.feedback import FeedbackLog
from courserag.lang.query import Query
from courserag.reader.reader import Reader
from courserag.retrieval.ranking import Ranker
from courserag.retrieval.session_pool import SessionRegistry
from courserag.stores.base import CourseStore

# Passages read whole kept (a repeated question reads them from memory): the last thousand
# questions' two runs each, a few MB of float16 token states.
PASSAGE_VECTORS, PASSAGE_TOKENS = 2_000, 150_000
# Each passage read whole is its own batch: the two run on both cores (48 against 67 ms a
# question on SyllabusQA, measured under load), and a run's measure does not depend on
# which other run was read beside it (int8 activations are quantized per batch).
PASSAGE_BATCH = 1


@dataclass
class EngineParts:
    """Settings, the course directory, the store, the model, sessions, and the optional LLM and gap log."""

    settings: Settings
    directory: CourseDirectory
    store: CourseStore
    embedder: Embedder
    sessions: SessionRegistry
    ranker: Ranker
    answerer: ChatAnswerer | None = None
    gap_log: FeedbackLog | None = None
    unit_vectors: GroupVectors | None = field(default=None, repr=False)  # kept answer-unit vectors
    # Whole passages read again (answers/extractive/reread.py), kept apart: a question's few
    # runs seldom recur, and beside the units they would push a course's units out.
    passage_vectors: GroupVectors | None = field(default=None, repr=False)
    # The trained reader's answer (settings.reader_weights): built here with the calibration
    # fitted with its weights (READER_THRESHOLD overriding the threshold), so a missing or
    # altered weight file stops the engine at start with its name.
    reading: ReadingAnswerer | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.reading is None and self.settings.reader_weights is not None:
            reader = Reader(
                self.settings.reader_weights,
                cache_dir=self.settings.models_dir(),
                threads=self.settings.reader_thread_count,
            )
            calibration = ReaderCalibration.from_manifest(reader.delta.calibration, self.settings.reader_threshold)
            self.reading = ReadingAnswerer(reader, calibration)
        if self.unit_vectors is None:
            self.unit_vectors = GroupVectors(self.settings.unit_vector_cache, self.settings.unit_token_cache)
        if self.passage_vectors is None:
            self.passage_vectors = GroupVectors(PASSAGE_VECTORS, PASSAGE_TOKENS)

    def unit_similarity(self, query: Query):
        """The extractive composer's unit similarity for one embedded question (its vector
        and, where the model gives them, its token states)."""
        return self.unit_vectors.similarity(
            self.embedder, query.vector, query.across, self.settings.embedding_batch_size, query.text
        )

    def passage_similarity(self, query: Query):
        """The same measure of whole passages, for the composer's second look at its likeliest
        ones; their vectors kept apart from the units'."""
        return self.passage_vectors.similarity(self.embedder, query.vector, query.across, PASSAGE_BATCH, query.text)

    def embed_texts(self, texts: list[str]):
        """Passage vectors of `texts`, in the configured batch size."""
        return self.embedder.embed_batch(texts, self.settings.embedding_batch_size)
