"""Which questions become content gaps (courserag/instructor/gap_rules.py, issue 21 point 4), and the
small study-tab rules of point 6 that decide what reaches the chat at all."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from courserag.instructor.gap_rules import REDIRECT_MODE, is_about_own_notes, refusal_is_gap, vote_is_gap


@pytest.mark.parametrize(
    "question, own",
    [
        ("What is in my notes?", True),
        ("Summarise my uploaded notes", True),
        ("What does the PDF I uploaded say about heaps?", True),
        ("我的笔记里写了什么？", True),
        ("我上传的文件讲了什么", True),
        ("What is the late policy for homework?", False),
        ("Are lecture notes posted online?", False),
        ("期末考试在什么时候？", False),
    ],
)
def test_a_question_about_the_learners_own_notes_is_recognised(question, own):
    assert is_about_own_notes(question) is own


@pytest.mark.parametrize(
    "question, kwargs, gap",
    [
        ("Is there a field trip?", {"scope": "both"}, True),
        ("Is there a field trip?", {"scope": "course"}, True),
        ("Is there a field trip?", {"scope": "notes"}, False),
        ("Is there a field trip?", {"scope": "both", "pending": True}, False),
        ("Is there a field trip?", {"scope": "both", "redirected": True}, False),
        ("Is there a field trip?", {"scope": "both", "learner": False}, False),
        ("What is in my notes?", {"scope": "both"}, False),
    ],
)
def test_which_refusals_are_content_gaps(question, kwargs, gap):
    assert refusal_is_gap(question, **kwargs) is gap


DOWN = {"vote": "down", "question": "What is the late policy?", "scope": "both", "mode": "extractive"}


@pytest.mark.parametrize(
    "record, about_notes, gap",
    [
        (DOWN, False, True),
        ({**DOWN, "wrong": True}, False, True),
        ({**DOWN, "mode": "refusal", "refused": True}, False, True),  # a 👎 on a plain refusal
        ({**DOWN, "vote": "up"}, False, False),
        ({**DOWN, "vote": "withdrawn"}, False, False),
        ({**DOWN, "mode": REDIRECT_MODE, "refused": True}, False, False),  # sent to another course
        ({**DOWN, "scope": "notes"}, False, False),
        ({**DOWN, "question": "What is in my notes?"}, False, False),
        (DOWN, True, False),  # its answer cites the learner's own notes
    ],
)
def test_which_votes_are_content_gaps(record, about_notes, gap):
    assert vote_is_gap(record, about_notes=about_notes) is gap


@pytest.fixture
def study_app(engine, tmp_path):
    from courserag.engine.facade import RagEngine
    from courserag.instructor.feedback import FeedbackLog
    from courserag.ui import StudyApp

    settings = replace(engine.settings, data_dir=tmp_path / "data")
    logged = RagEngine(
        settings, engine.directory, engine.store, engine.embedder, gap_log=FeedbackLog(settings.data_dir)
    )
    return StudyApp(logged, settings)


def run_ask(app, question, sid=None, scope="both", course="csc3100"):
    *_, last = app.ask(question, [], course, scope, sid, "en", [])
    history, box, turns, payload = last
    return history, box, turns, payload


def test_redirects_questions_about_own_notes_and_batch_tests_are_no_gaps(study_app):
    _, _, turns, redirect = run_ask(study_app, "When is the DS2010 midterm exam?")
    assert redirect["refused"] is True and "DS2010" in redirect["answer"]
    assert turns[-1].mode == REDIRECT_MODE  # and its 👎 is no gap either
    study_app.on_like(turns, "en", SimpleNamespace(index=turns[-1].index, liked=False, value=None))
    study_app.mark_wrong(turns[-1].index, turns, "en")
    _, _, turns, _ = run_ask(study_app, "What is in my notes?")  # refused or not, and thumbed down: no gap
    turns, *_ = study_app.on_like(turns, "en", SimpleNamespace(index=turns[-1].index, liked=False, value=None))
    from courserag.instructor.tools import InstructorTools

    rows = InstructorTools(study_app.engine, study_app.feedback).batch("csc3100", "Who won the 1998 World Cup?")
    assert rows[0][2].startswith("refused")
    assert study_app.feedback.refused("csc3100") == [] and study_app.feedback.gap_groups("csc3100") == []

    _, _, _, learner = run_ask(study_app, "Who won the 1998 World Cup?")  # the same question from a learner is one
    assert learner["refused"] is True
    assert [g["question"] for g in study_app.feedback.gap_groups("csc3100")] == ["Who won the 1998 World Cup?"]


def test_an_answer_marked_wrong_is_a_gap_with_the_sources_it_used(study_app):
    from courserag.ui.instructor.views import gaps_table

    _, _, turns, payload = run_ask(study_app, "What is the late policy for homework?")
    assert not payload["refused"] and study_app.feedback.gap_groups("csc3100") == []
    index = turns[-1].index
    turns, *_ = study_app.on_like(turns, "en", SimpleNamespace(index=index, liked=False, value=None))
    turns, box, target, note, _ = study_app.mark_wrong(index, turns, "en")
    assert box["visible"] is True and "marked as wrong" in note
    [group] = study_app.feedback.gap_groups("csc3100")
    assert group["question"] == "What is the late policy for homework?" and group["wrong"] == 1 and group["count"] == 1
    cited = {c["source"] for c in payload["citations"]}  # the sources the wrong answer used
    assert cited and cited & {source for source, _ in group["sources"]}
    table = gaps_table([group], "en", "csc3100")
    linked = next(source for source, _ in group["sources"] if source in cited)
    assert f'<a href="course-file/csc3100/{linked}' in table and f">{linked} · " in table  # it links to its file

    _, _, turns, _ = run_ask(study_app, "What is the late policy for homework?")  # marked wrong without a 👎 first
    study_app.mark_wrong(turns[-1].index, turns, "en")
    [group] = study_app.feedback.gap_groups("csc3100")
    assert group["wrong"] == 2 and group["count"] == 2


def test_a_too_long_question_is_kept_in_the_box_and_reaches_no_chat(study_app):
    limit = study_app.settings.limits.max_question_chars
    with pytest.warns(UserWarning, match=f"{limit + 1} characters long"):
        history, box, turns, payload = run_ask(study_app, "y" * (limit + 1))
    assert history == [] and turns == [] and payload is None
    assert not isinstance(box, str)  # gr.skip(): the question stays in the box to be shortened


@pytest.mark.parametrize("blank", ["", "   \n\t "])
def test_an_empty_question_clears_the_box_and_reaches_no_chat(study_app, blank):
    with pytest.warns(UserWarning, match="Please type a question first"):
        history, box, turns, payload = run_ask(study_app, blank)
    assert history == [] and turns == [] and payload is None and box == ""


def test_my_notes_with_no_notes_says_nothing_was_searched(study_app):
    history, box, turns, payload = run_ask(study_app, "What is the late policy for homework?", scope="notes")
    assert (
        "not uploaded any notes" in history[-1]["content"] and "this course's materials" not in history[-1]["content"]
    )
    assert payload["refused"] is True  # the API's answer is the engine's refusal, as before
    assert study_app.feedback.refused("csc3100") == []
