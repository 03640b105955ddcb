"""bench/start.py's child: a fresh interpreter starts as app.py does on the sample courses with
the committed reader and answers each course's first example question."""

from __future__ import annotations

from bench.start import start_once
from tests.conftest import MODEL_CACHE, PROJECT_ROOT

READER = PROJECT_ROOT / "models" / "reader" / "reader.safetensors"


def test_a_fresh_start_with_the_reader_answers_each_course_s_first_question(sample_data, monkeypatch):
    monkeypatch.setenv("MODEL_CACHE_DIR", str(MODEL_CACHE))  # E5 and the reader converted once per checkout
    started = start_once(str(READER), str(sample_data), timeout=600)
    assert started["reader"] is True
    assert set(started["first_answers"]) == {"csc3100", "ds2010"}
    assert all(a["ms"] > 0 and not a["refused"] for a in started["first_answers"].values())
    assert started["ready_s"] > 0 and started["rss_mb"] > 100
