"""M6: an LLM answer has an overall wall deadline and a length cap, both with fallback.

The per-read timeout alone let a trickling model (a token every few seconds) answer after
37 s with a 5 s timeout and no fallback, and four of them held every answer slot; a
20,000-character answer was accepted. The stub model in tests/llm_server.py trickles words
or keep-alive comments, or writes far more than asked.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from courserag.answers.llm import ChatAnswerer
from courserag.config.settings import Settings
from courserag.errors import LLMUnavailableError
from tests.llm_server import start_fake_llm

SLACK_S = 10.0
MESSAGES = [{"role": "system", "content": "rules"}, {"role": "user", "content": "Sources: [1]\n\nQuestion: q"}]


@pytest.fixture
def llm():
    server = start_fake_llm("ok")
    server.delay_s = 0.5  # each write well inside the read timeout
    yield server
    server.stop()


@pytest.mark.parametrize("mode", ["trickle", "keepalive"])
def test_a_trickling_answer_is_ended_at_the_deadline(llm, mode):
    llm.mode = mode
    answerer = ChatAnswerer(llm.base_url, "m", "sk-secret-value", timeout_s=5, deadline_s=2)
    started = time.monotonic()
    received = []
    with pytest.raises(LLMUnavailableError) as caught:
        for delta in answerer.stream(MESSAGES):
            received.append(delta)
    assert caught.value.code == "llm_deadline" and time.monotonic() - started < 2 + SLACK_S
    assert "within 2 s" in str(caught.value) and "2 秒" in caught.value.say("zh")
    assert "sk-secret-value" not in str(caught.value)
    assert llm.disconnected.wait(SLACK_S), "the connection to the model was not closed"


def test_a_trickling_rewrite_is_ended_at_the_deadline(llm):
    llm.mode = "trickle"
    answerer = ChatAnswerer(llm.base_url, "m", None, timeout_s=5, deadline_s=2)
    started = time.monotonic()
    with pytest.raises(LLMUnavailableError) as caught:
        answerer.complete(MESSAGES)
    assert caught.value.code == "llm_deadline" and time.monotonic() - started < 2 + SLACK_S


def test_an_answer_over_the_length_cap_is_refused(llm):
    llm.mode = "long"
    answerer = ChatAnswerer(llm.base_url, "m", None, timeout_s=5, max_answer_chars=8000)
    received = ""
    with pytest.raises(LLMUnavailableError) as caught:
        for delta in answerer.stream(MESSAGES):
            received += delta
    assert caught.value.code == "llm_too_long" and len(received) <= 8000
    assert "8,000 characters" in str(caught.value)


def test_a_normal_answer_is_untouched(llm):
    answerer = ChatAnswerer(llm.base_url, "m", None, timeout_s=5, deadline_s=2, max_answer_chars=8000)
    assert "".join(answerer.stream(MESSAGES)).startswith("According to the course materials")


def test_the_deadline_and_cap_are_settings():
    settings = Settings.from_env({"LLM_DEADLINE_S": "12.5", "LLM_MAX_ANSWER_CHARS": "3000"})
    assert (settings.llm_deadline_s, settings.llm_max_answer_chars) == (12.5, 3000)
    assert (Settings().llm_deadline_s, Settings().llm_max_answer_chars) == (60.0, 8000)


@pytest.mark.slow
def test_trickling_models_cannot_hold_the_answer_slots(llm, built_sample_data, cached_embedder):
    """Four questions at once against a trickling model: each falls back to the extractive
    answer, with a notice, within the deadline."""
    from courserag.courses.directory import load_course_directory
    from courserag.engine.facade import RagEngine
    from courserag.stores import LocalCourseStore
    from tests.conftest import SAMPLE_DIRECTORY

    llm.mode = "trickle"
    settings = Settings(data_dir=built_sample_data, llm_base_url=llm.base_url, llm_deadline_s=2.0, llm_timeout_s=5.0)
    answerer = ChatAnswerer(llm.base_url, "m", None, timeout_s=5.0, deadline_s=2.0)
    engine = RagEngine(
        settings,
        load_course_directory(SAMPLE_DIRECTORY),
        LocalCourseStore(built_sample_data / "index", cached_embedder.dim),
        cached_embedder,
        answerer=answerer,
    )
    started = time.monotonic()
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: engine.ask("csc3100", "What is the late policy for homework?"), range(4)))
    assert time.monotonic() - started < 2 + SLACK_S
    for answer in answers:
        assert answer.mode == "extractive" and answer.citations and not answer.refused
        assert any("did not finish its answer within 2 s" in warning for warning in answer.warnings)
