"""M1 at the engine and session level: pools are keyed on the server, capped in number and
memory with clear refusals, and released by a timer without anyone calling in.

Seen from outside (Gradio's store evicted by cheap requests while the learner keeps their
notes) in tests/integration/test_server.py.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from types import SimpleNamespace

import pytest

from courserag.config.settings import ServerLimits, Settings
from courserag.ui.study.sessions import SessionIndex, valid_sid

pytestmark = pytest.mark.slow  # a real engine over the sample index


@pytest.fixture
def make_engine(built_sample_data, cached_embedder):
    from courserag.courses.directory import load_course_directory
    from courserag.engine.facade import RagEngine
    from courserag.stores import LocalCourseStore
    from tests.conftest import SAMPLE_DIRECTORY

    engines = []

    def make(**settings):
        engine = RagEngine(
            Settings(data_dir=built_sample_data, **settings),
            load_course_directory(SAMPLE_DIRECTORY),
            LocalCourseStore(built_sample_data / "index", cached_embedder.dim),
            cached_embedder,
        )
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.sessions.close()


@pytest.fixture
def note(tmp_path):
    path = tmp_path / "note.md"
    path.write_text("# Note\n\nThe capybara table resizes at 37 keys per slot.\n", encoding="utf-8")
    return path


def wait_until(predicate, timeout: float) -> bool:
    event, deadline = threading.Event(), time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        event.wait(0.05)
    return True


def test_new_sessions_are_refused_clearly_when_the_server_holds_its_maximum(make_engine, note):
    engine = make_engine(server=replace(ServerLimits(), max_sessions=2))
    assert engine.add_upload("s1", note).ok and engine.add_upload("s2", note).ok
    third = engine.add_upload("s3", note)
    assert not third.ok and "as many learners as it can (2)" in third.error
    assert "上限" in third.say("zh")
    assert engine.add_upload("s1", note, "again.md").ok  # sessions already there keep working
    engine.end_session("s1")
    assert engine.add_upload("s3", note).ok  # and a place that frees up is taken
    assert len(engine.sessions) == 2


def test_uploads_are_refused_when_the_pools_memory_is_full(make_engine, note):
    engine = make_engine(server=replace(ServerLimits(), max_pool_memory_mb=0.001))
    result = engine.add_upload("s1", note)
    assert not result.ok and "memory for uploaded notes is full" in result.error
    assert engine.uploads("s1") == []


def test_idle_sessions_are_released_on_a_timer(make_engine, note):
    """Before: the idle sweep ran only when someone uploaded, so idle pools stayed for good."""
    engine = make_engine(session_idle_minutes=0.005)  # 0.3 s
    assert engine.add_upload("s1", note).ok
    assert wait_until(lambda: len(engine.sessions) == 0, timeout=15), "the idle pool was not released"


def test_the_session_id_is_derived_on_the_server_from_gradios_session():
    released = []
    index = SessionIndex(released.append, grace_s=0)
    tab, other = SimpleNamespace(session_hash="abc123"), SimpleNamespace(session_hash="zzz999")
    sid = index.sid_for(tab, fallback="0" * 32)
    assert valid_sid(sid) and sid == index.sid_for(tab) and sid != index.sid_for(other)
    assert sid != SessionIndex(released.append).sid_for(tab)  # keyed per process: not guessable from the hash
    assert index.sid_for(None, "f" * 32) == "f" * 32 and index.sid_for(None, "not-an-id") is None
    index.release_hash("abc123")
    assert released == [sid]
