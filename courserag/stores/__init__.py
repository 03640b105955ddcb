"""Course stores: pick the backend from settings (Weaviate when WEAVIATE_URL is set)."""

from __future__ import annotations

from courserag.config.settings import Settings
from courserag.embedders import vector_space
from courserag.stores.base import CourseHits, CourseStore, FileRecord, StoreHealth
from courserag.stores.fallback import FallbackCourseStore
from courserag.stores.local import LocalCourseStore

__all__ = [
    "CourseHits",
    "CourseStore",
    "FallbackCourseStore",
    "FileRecord",
    "StoreHealth",
    "LocalCourseStore",
    "build_store",
    "local_store_path",
    "store_healths",
]


def local_store_path(settings: Settings):
    return settings.data_dir / "index"


def build_store(settings: Settings, dim: int) -> CourseStore:
    """The course store for these settings; nothing connects here.

    With Weaviate configured, a local index that was built earlier serves as the fallback
    when Weaviate is unreachable (FallbackCourseStore)."""
    local = LocalCourseStore(
        local_store_path(settings), dim, vector_space(settings.embedding_model, settings.embedding_backend)
    )
    if not settings.weaviate_url:
        return local
    from courserag.stores.weaviate import WeaviateConfig, WeaviateCourseStore

    weaviate = WeaviateCourseStore(WeaviateConfig.from_settings(settings), dim)
    if local_store_path(settings).exists():
        return FallbackCourseStore(weaviate, local)
    return weaviate


def store_healths(store: CourseStore) -> list[StoreHealth]:
    """Health of the store, and of its fallback when it has one (primary first)."""
    parts = store.stores if isinstance(store, FallbackCourseStore) else (store,)
    return [part.health() for part in parts]
