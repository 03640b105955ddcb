"""Course stores: pick the backend from settings (Weaviate when WEAVIATE_URL is set)."""

from __future__ import annotations

from courserag.settings import Settings
from courserag.stores.base import CourseStore, FileRecord, StoreHealth
from courserag.stores.local import LocalCourseStore

__all__ = ["CourseStore", "FileRecord", "StoreHealth", "LocalCourseStore", "build_store", "local_store_path"]


def local_store_path(settings: Settings):
    return settings.data_dir / "index"


def build_store(settings: Settings, dim: int) -> tuple[CourseStore, CourseStore | None]:
    """(primary store, fallback). With Weaviate configured, a local index that was built
    earlier serves as the fallback when Weaviate is unreachable; nothing connects here."""
    local = LocalCourseStore(local_store_path(settings), dim)
    if not settings.weaviate_url:
        return local, None
    from courserag.stores.weaviate_store import WeaviateCourseStore

    fallback = local if local_store_path(settings).exists() else None
    return WeaviateCourseStore(settings, dim), fallback
