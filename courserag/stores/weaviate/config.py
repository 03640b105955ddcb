"""What the Weaviate store needs to know, and nothing else: a small frozen config.

The store is given this instead of the whole Settings, so it cannot come to depend on
unrelated settings, and tests and tools can build one in a line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from courserag.errors import ConfigError

if TYPE_CHECKING:
    from courserag.config.settings import Settings

SEARCH_MODES = ("separate", "hybrid")


def collection_for(prefix: str, model: str) -> str:
    """One collection per embedding space ("CourseChunks_multilingual_e5_small_E5_int8_r3",
    embedders.vector_space): vectors of two models, or of two int8 recipes, can never meet in
    one collection, and switching starts a fresh one."""
    slug = re.sub(r"[^A-Za-z0-9]+", "_", model.split("/")[-1]).strip("_")
    return f"{prefix}_{slug}" if slug else prefix


@dataclass(frozen=True)
class WeaviateConfig:
    """Where the collection lives and how it is searched.

    `search` is "separate" (a vector query and a BM25 query, fused by our ranker) or
    "hybrid" (Weaviate's native hybrid with `hybrid_alpha`: 1 is pure vector, 0 pure BM25).
    The API key is not here: it is a secret, read from the environment when connecting.
    """

    url: str
    grpc_url: str | None = None
    collection: str = "CourseChunks"
    timeout_s: float = 5.0
    search: str = "separate"
    hybrid_alpha: float = 0.5
    embedding_model: str = ""  # the vectors' space this collection holds (embedders.vector_space)

    def __post_init__(self) -> None:
        if not self.url:
            raise ConfigError("WEAVIATE_URL is not set, so the Weaviate store cannot be used")
        if not self.collection:
            raise ConfigError("WEAVIATE_COLLECTION must not be empty")
        if self.timeout_s <= 0:
            raise ConfigError(f"WEAVIATE_TIMEOUT_S must be > 0, but got {self.timeout_s}")
        if self.search not in SEARCH_MODES:
            raise ConfigError(f"WEAVIATE_SEARCH must be 'separate' or 'hybrid', but got {self.search!r}")
        if not 0.0 <= self.hybrid_alpha <= 1.0:
            raise ConfigError(f"WEAVIATE_HYBRID_ALPHA must be in [0, 1], but got {self.hybrid_alpha}")

    @classmethod
    def from_settings(cls, settings: "Settings") -> "WeaviateConfig":
        """The Weaviate part of the settings; ConfigError if WEAVIATE_URL is not set."""
        from courserag.embedders import vector_space

        space = vector_space(settings.embedding_model, settings.embedding_backend)
        return cls(
            url=settings.weaviate_url or "",
            grpc_url=settings.weaviate_grpc_url,
            collection=collection_for(settings.weaviate_collection, space),
            embedding_model=space,
            timeout_s=float(settings.weaviate_timeout_s),
            search=settings.weaviate_search,
            hybrid_alpha=float(settings.weaviate_hybrid_alpha),
        )
