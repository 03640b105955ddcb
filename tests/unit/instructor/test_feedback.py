"""Feedback storage and the content-gap logs (courserag/instructor/feedback.py), and the UI handlers
that write them: nothing a learner uploaded may ever reach DATA_DIR."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from courserag.instructor.feedback import ANSWER_WITHHELD, FeedbackLog, safe_citations

COURSE_CITE = {
    "n": 1,
    "source": "syllabus.md",
    "locator": "Late policy",
    "origin": "course",
    "course_id": "csc3100",
    "score": 0.9,
    "text": "A late submission loses 10% per day.",
    "store": "local",
    "snippet": "A late submission…",
}
UPLOAD_CITE = {
    "n": 2,
    "source": "my_diary.pdf",
    "locator": "page 3",
    "origin": "upload",
    "course_id": None,
    "score": 0.8,
    "text": "PRIVATE: my student id is 12345",
    "store": "session",
    "snippet": "PRIVATE: my student…",
}


def _lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_vote_is_stored_with_question_answer_course_and_citation_places(tmp_path):
    log = FeedbackLog(tmp_path)
    record = log.record_vote(
        question="What is the late policy?",
        answer="10% per day [1]",
        citations=[COURSE_CITE],
        course_id="csc3100",
        vote="up",
        scope="both",
        mode="extractive",
    )
    [stored] = _lines(tmp_path / "feedback.jsonl")
    assert stored == record
    assert stored["vote"] == "up" and stored["course"] == "csc3100"
    assert stored["question"] == "What is the late policy?" and stored["answer"] == "10% per day [1]"
    assert stored["citations"] == [{"n": 1, "source": "syllabus.md", "locator": "Late policy", "origin": "course"}]
    assert stored["comment"] == "" and stored["timestamp"]


def test_upload_text_never_reaches_the_feedback_file(tmp_path):
    log = FeedbackLog(tmp_path)
    log.record_vote(
        question="what is my id?",
        answer="PRIVATE: my student id is 12345 [2]",
        citations=[COURSE_CITE, UPLOAD_CITE],
        course_id="csc3100",
        vote="down",
    )
    raw = (tmp_path / "feedback.jsonl").read_text(encoding="utf-8")
    assert "12345" not in raw and "PRIVATE" not in raw
    [stored] = _lines(tmp_path / "feedback.jsonl")
    assert stored["answer"] == ANSWER_WITHHELD and stored["answer_withheld"] is True
    assert stored["citations"][1] == {"n": 2, "source": "my_diary.pdf", "locator": "page 3", "origin": "upload"}
    assert all(set(c) == {"n", "source", "locator", "origin"} for c in stored["citations"])


def test_comment_and_withdraw_append_the_same_record(tmp_path):
    log = FeedbackLog(tmp_path)
    record = log.record_vote(question="q", answer="a", citations=[], course_id="ds2010", vote="down")
    log.add_comment(record, "the answer missed the deadline")
    records = log.feedback()
    assert len(records) == 1 and records[0]["comment"] == "the answer missed the deadline"
    assert len(_lines(tmp_path / "feedback.jsonl")) == 2
    log.withdraw(records[0])
    assert log.feedback()[0]["vote"] == "withdrawn"
    with pytest.raises(ValueError):
        log.record_vote(question="q", answer="a", citations=[], course_id="ds2010", vote="meh")


def test_content_gaps_and_most_cited(tmp_path):
    log = FeedbackLog(tmp_path)
    log.log_refused("Is there a final project?", "csc3100", "both")
    log.log_refused("另一个课程的问题", "ds2010", "course")
    log.record_vote(
        question="Why is merge sort stable?",
        answer="…",
        citations=[COURSE_CITE],
        course_id="csc3100",
        vote="down",
        comment="too vague",
    )
    log.record_vote(question="late?", answer="…", citations=[COURSE_CITE], course_id="csc3100", vote="up")
    log.log_citations("csc3100", [COURSE_CITE, UPLOAD_CITE])
    log.log_citations("csc3100", [COURSE_CITE, dict(COURSE_CITE, source="lectures/week03_hashing.pdf")])
    gaps = log.content_gaps("csc3100")
    assert {(g["kind"], g["question"]) for g in gaps} == {
        ("refused", "Is there a final project?"),
        ("thumbs down", "Why is merge sort stable?"),
    }
    assert [g["comment"] for g in gaps if g["kind"] == "thumbs down"] == ["too vague"]
    assert log.most_cited("csc3100") == [("syllabus.md", 2, 1, 1), ("lectures/week03_hashing.pdf", 1, 0, 0)]
    # the learner's own files are never logged as citations
    assert "my_diary.pdf" not in (tmp_path / "citations.jsonl").read_text(encoding="utf-8")


def test_reading_survives_a_corrupt_line(tmp_path):
    (tmp_path / "feedback.jsonl").write_text(
        '{"id": "a", "vote": "up", "course": "c"}\nnot json\n\n[1]\n', encoding="utf-8"
    )
    assert [r["id"] for r in FeedbackLog(tmp_path).feedback()] == ["a"]
    assert FeedbackLog(tmp_path / "missing").content_gaps() == []


def test_safe_citations_keeps_places_only():
    assert safe_citations([UPLOAD_CITE]) == [
        {"n": 2, "source": "my_diary.pdf", "locator": "page 3", "origin": "upload"}
    ]


# -- the UI handlers that write feedback ---------------------------------------------------


@pytest.fixture
def study_app(engine, tmp_path):
    from dataclasses import replace

    from courserag.engine.facade import RagEngine
    from courserag.instructor.feedback import FeedbackLog
    from courserag.ui import StudyApp

    settings = replace(engine.settings, data_dir=tmp_path / "data")
    logged = RagEngine(
        settings, engine.directory, engine.store, engine.embedder, gap_log=FeedbackLog(settings.data_dir)
    )
    return StudyApp(logged, settings)


def _run_ask(app, question, sid, scope="both", course="csc3100", turns=None):
    *_, last = app.ask(question, [], course, scope, sid, "en", turns or [])
    history, _, turns, payload = last
    return history, turns, payload


def test_like_handler_stores_vote_and_comment_without_upload_text(study_app, tmp_path):
    sid = "a" * 32
    notes = tmp_path / "secret_notes.txt"
    notes.write_text("The okapi index stores exactly 42 stripes per bucket, says my private note.\n", encoding="utf-8")
    assert study_app.engine.add_upload(sid, notes, notes.name).ok
    history, turns, payload = _run_ask(study_app, "How many stripes per bucket does the okapi index store?", sid)
    assert any(c["origin"] == "upload" for c in payload["citations"])
    index = turns[-1].index
    turns, box, target, note, _ = study_app.on_like(turns, "en", SimpleNamespace(index=index, liked=False, value=None))
    assert target == index and box["visible"] is True
    study_app.send_comment("wrong bucket count", target, turns, "en")
    [record] = study_app.feedback.feedback()
    assert record["vote"] == "down" and record["comment"] == "wrong bucket count"
    assert record["question"] == "How many stripes per bucket does the okapi index store?"
    raw = (tmp_path / "data" / "feedback.jsonl").read_text(encoding="utf-8")
    assert "42 stripes" not in raw and "private note" not in raw
    study_app.engine.end_session(sid)


def test_refused_questions_are_logged_for_instructors(study_app, tmp_path):
    _, turns, payload = _run_ask(
        study_app, "What is the recipe for a chocolate soufflé with raspberries?", None, scope="course"
    )
    assert payload["refused"] is True
    assert [r["question"] for r in study_app.feedback.refused("csc3100")] == [
        "What is the recipe for a chocolate soufflé with raspberries?"
    ]
    # a refusal over the learner's own notes only is not a course content gap
    _run_ask(study_app, "What is the recipe for a lemon tart?", None, scope="notes")
    assert len(study_app.feedback.refused("csc3100")) == 1
