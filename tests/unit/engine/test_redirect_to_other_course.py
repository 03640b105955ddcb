"""A question that names another listed course's code is sent to that course's workspace,
unless the learner's own notes, first among the sources, speak of that course: then the note
answers (issue 42: no wording skips the learner's notes). Through the real engine over the
sample courses, without a catalog, so only the materials path decides."""

from __future__ import annotations

from dataclasses import replace

import pytest

from courserag.engine.facade import RagEngine

NOTE = "# Course notes\n\nThe CSC3100 midterm review session is held in room Q-12 on Friday.\n"


@pytest.fixture
def engine_without_catalog(engine, tmp_path):
    engine = RagEngine(replace(engine.settings, catalog=None), engine.directory, engine.store, engine.embedder)
    path = tmp_path / "course_notes.md"
    path.write_text(NOTE, encoding="utf-8")
    assert engine.add_upload("with-note", path).ok
    return engine


def test_a_note_that_speaks_of_the_other_course_answers_instead_of_the_redirect(engine_without_catalog):
    answer = engine_without_catalog.ask("ds2010", "Where is the CSC3100 midterm review held?", session_id="with-note")
    assert not answer.refused and not answer.redirected and "Q-12" in answer.answer
    assert answer.citations[0]["source"] == "course_notes.md"


def test_without_such_a_note_the_question_is_sent_to_the_other_course(engine_without_catalog):
    answer = engine_without_catalog.ask("ds2010", "Where is the CSC3100 midterm review held?", session_id="no-note")
    assert answer.refused and answer.redirected and "CSC3100 Data Structures" in answer.answer
