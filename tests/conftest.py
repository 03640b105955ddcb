"""Shared fixtures: isolated environment, one embedder per run, a built sample index."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DIRECTORY = PROJECT_ROOT / "course_directory.yaml"
_ISOLATED_VARS = (
    "WEAVIATE_URL", "WEAVIATE_GRPC_URL", "WEAVIATE_API_KEY", "WEAVIATE_COLLECTION",
    "LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", "INSTRUCTOR_TOKEN", "DATA_DIR",
    "COURSE_DIRECTORY", "TOP_K", "FUSION",
)


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch, tmp_path):
    """No test sees the developer's services or writes into the repo's data folder."""
    for name in _ISOLATED_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    yield


@pytest.fixture(scope="session")
def embedder():
    from courserag.embedding import get_embedder

    return get_embedder("all-MiniLM-L6-v2")


@pytest.fixture(scope="session")
def built_sample_data(tmp_path_factory, embedder):
    """DATA_DIR with both sample courses indexed in the local store, built once per run."""
    from courserag.courses import load_course_directory
    from courserag.indexer import build_course
    from courserag.settings import Settings
    from courserag.stores import LocalCourseStore

    data_dir = tmp_path_factory.mktemp("sample-data")
    settings = Settings(data_dir=data_dir)
    store = LocalCourseStore(data_dir / "index", embedder.dim)
    for course in load_course_directory(SAMPLE_DIRECTORY).courses:
        summary = build_course(course, store, embedder, settings)
        assert not summary.failed, summary.failed
    return data_dir


@pytest.fixture
def sample_data(built_sample_data, tmp_path):
    """A private copy of the built sample data, safe to modify."""
    target = tmp_path / "sample-data"
    shutil.copytree(built_sample_data, target)
    return target


@pytest.fixture
def engine(built_sample_data, embedder):
    """An engine over the sample courses (local store, extractive answers)."""
    from courserag.courses import load_course_directory
    from courserag.engine import RagEngine
    from courserag.settings import Settings
    from courserag.stores import LocalCourseStore

    settings = Settings(data_dir=built_sample_data)
    store = LocalCourseStore(built_sample_data / "index", embedder.dim)
    return RagEngine(settings, load_course_directory(SAMPLE_DIRECTORY), store, embedder)


# The local Weaviate wire-protocol server (tests/weaviate_server) as fixtures.
from tests.weaviate_server.fixtures import weaviate_server, weaviate_server_factory  # noqa: E402,F401
