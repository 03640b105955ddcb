"""A build against an unreachable Weaviate fails naming the URL, even when a local index
exists (the read-side fallback is for learners' questions only; issue 20, finding 8)."""

from __future__ import annotations

import json
import time

import pytest

from courserag.cli import build_main
from tests.app_helpers import free_port


@pytest.mark.slow
def test_a_build_against_a_dead_weaviate_fails_even_beside_a_local_index(monkeypatch, capsys, sample_data):
    """Before: with DATA_DIR/index built, the build compared against the local copy through the
    fallback, printed "8 files, 0 indexed, 8 unchanged … 0 failed" and exited 0, writing nothing."""
    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("DATA_DIR", str(sample_data))
    monkeypatch.setenv("WEAVIATE_URL", url)
    monkeypatch.setenv("WEAVIATE_TIMEOUT_S", "2")
    assert (sample_data / "index").is_dir()
    started = time.monotonic()
    code = build_main(["--course", "csc3100", "--no-progress", "--json"])
    captured = capsys.readouterr()
    assert code != 0 and time.monotonic() - started < 30
    assert url in captured.err and "Traceback" not in captured.err
    assert "unchanged" not in captured.out and not captured.out.strip().startswith("[")


@pytest.mark.slow
def test_the_instructors_build_against_a_dead_weaviate_says_so(monkeypatch, sample_data, cached_embedder):
    """The same through the engine the instructor tab uses: an error naming the URL, not a summary."""
    from courserag.config.settings import Settings
    from courserag.courses.directory import load_course_directory
    from courserag.engine.facade import RagEngine
    from courserag.errors import StoreUnavailableError
    from courserag.stores import FallbackCourseStore, build_store
    from tests.conftest import SAMPLE_DIRECTORY

    url = f"http://127.0.0.1:{free_port()}"
    settings = Settings(data_dir=sample_data, weaviate_url=url, weaviate_timeout_s=2.0)
    store = build_store(settings, cached_embedder.dim)
    assert isinstance(store, FallbackCourseStore)
    engine = RagEngine(settings, load_course_directory(SAMPLE_DIRECTORY), store, cached_embedder)
    with pytest.raises(StoreUnavailableError) as error:
        engine.build_course("csc3100")
    assert url.split("//")[1] in json.dumps(str(error.value)) or "127.0.0.1" in str(error.value)
