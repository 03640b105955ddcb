"""The catalog's answer about the workspace's own course competes with the notes and the
materials instead of taking the question (issue 42, item 1), through the real engine over
the sample courses and the sample catalog: a note or a syllabus that answers in the
catalog's words (room, credits, prerequisite, 学分, 教室) answers; a question only the
catalog answers is still the catalog's, and an off-topic one is refused.

Each question is read as the catalog intent given with it, whatever the fitted intent
model (which is refit) reads: what is tested is who answers once the catalog claims it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from courserag.engine import catalog_path
from courserag.engine.facade import RagEngine

NOTES = {
    "team_notes.md": (
        "# Team notes\n\n## Capstone\n\nThe capstone showcase for our team is held in room Q-4471.\n\n"
        "## Poster\n\nOur study group earns 2 bonus credits for the poster.\n\n"
        "## Hackathon\n\nThe prerequisite for the robotics hackathon is a signed safety waiver.\n"
    ),
    "复习笔记.md": "# 复习笔记\n\n复习课在教室 R-208 举行。\n\n志愿服务活动计 1 个学分，需要提交服务证明。\n",
}
# Notes that name a catalog course (session "s2"): what they say of it is theirs to answer.
NAMED_NOTES = {
    "course_notes.md": (
        "# Course notes\n\nThe CSC3100 midterm review session is held in room Q-12 on Friday.\n\n"
        "DS2010 project teams earn 2 bonus credits for the poster.\n"
    ),
    "课程笔记.md": "# 课程笔记\n\nCSC3100 的期中复习课在教室 R-315 举行。\n\nDS2010 的小组海报可以获得 2 个附加学分。\n",
}
# Notes that name a program, or two catalog courses at once (session "s3").
PROGRAM_NOTES = {
    "club_notes.md": (
        "# Club notes\n\nThe BSc Computer Science orientation is held in room Q-88 on Monday.\n\n"
        "The CSC3100 and DS2010 joint review session is on Saturday in room Q-30.\n"
    ),
    "迎新笔记.md": "# 迎新笔记\n\n计算机科学理学学士的迎新会在教室 R-66 举行。\n",
}


@pytest.fixture
def catalog_engine(engine, tmp_path):
    """The sample engine on a fixed day of Fall 2026 (the catalog's "this term" and "next
    term"), with NOTES uploaded in session "s1", NAMED_NOTES in "s2" and PROGRAM_NOTES in "s3"."""
    engine = RagEngine(
        replace(engine.settings, catalog_today="2026-12-01"), engine.directory, engine.store, engine.embedder
    )
    for session, notes in (("s1", NOTES), ("s2", NAMED_NOTES), ("s3", PROGRAM_NOTES)):
        for name, text in notes.items():
            path = tmp_path / name
            path.write_text(text, encoding="utf-8")
            assert engine.add_upload(session, path).ok
    return engine


@pytest.fixture
def reads_as(monkeypatch):
    """`reads_as(intent)`: the catalog reads every question as asking `intent`."""
    return lambda intent: monkeypatch.setattr(catalog_path, "intent_reader", lambda parts: lambda text: (intent,))


def _catalog_cited(answer) -> list[str]:
    return [c["source"] for c in answer.citations if c["source"].startswith("catalog/")]


@pytest.mark.parametrize("course", ["csc3100", "ds2010"])
@pytest.mark.parametrize(
    "question, intent, note, says",
    [
        ("In which room is the capstone showcase held?", "sections", "team_notes.md", "Q-4471"),
        ("How many bonus credits does the poster earn?", "credits", "team_notes.md", "2 bonus credits"),
        (
            "What is the prerequisite for the robotics hackathon?",
            "prerequisites",
            "team_notes.md",
            "signed safety waiver",
        ),
        ("复习课在哪个教室？", "sections", "复习笔记.md", "R-208"),
        ("志愿服务活动计几个学分？", "credits", "复习笔记.md", "1 个学分"),
    ],
)
def test_a_note_that_answers_in_the_catalogs_words_answers_not_the_catalog(
    catalog_engine, reads_as, course, question, intent, note, says
):
    reads_as(intent)
    answer = catalog_engine.ask(course, question, session_id="s1")
    assert not answer.refused and answer.mode != "catalog", answer.answer
    assert answer.citations[0]["source"] == note and answer.citations[0]["origin"] == "upload"
    assert says in answer.answer and not _catalog_cited(answer)


@pytest.mark.parametrize(
    "course, question, intent, says",
    [
        ("ds2010", "第 8 周讲什么内容？", "description", "集成学习"),
        ("csc3100", "What does week 8 cover?", "description", "Midterm exam"),
        ("ds2010", "ECE 专业学生修这门课有几个学分？", "credits", "计 2 学分"),  # not the catalog's 3
    ],
)
def test_the_materials_that_answer_a_question_in_the_catalogs_words_answer_it(
    catalog_engine, reads_as, course, question, intent, says
):
    reads_as(intent)
    answer = catalog_engine.ask(course, question)
    assert not answer.refused and answer.mode != "catalog", answer.answer
    assert says in answer.answer and not _catalog_cited(answer)


@pytest.mark.parametrize(
    "course, question, intent, says, source",
    [
        ("csc3100", "Which sections run next term?", "sections", "in Spring 2027: section L01", "catalog/sections.csv"),
        (
            "csc3100",
            "What can I take after this course?",
            "reverse",
            "CSC3150 Operating Systems",
            "catalog/courses.csv",
        ),
        (
            "csc3100",
            "Is this course required for the computer science major?",
            "program",
            "required in year 2",
            "catalog/requirements.csv",
        ),
        ("csc3100", "What are the prerequisites?", "prerequisites", "Prerequisites of CSC3100", "catalog/courses.csv"),
        ("ds2010", "下学期这门课有哪些班？", "sections", "（2027 春季）：L01 班", "catalog/sections.csv"),
        ("ds2010", "修完这门课之后可以选什么课？", "reverse", "DS2030 数据可视化", "catalog/courses.csv"),
    ],
)
def test_a_question_only_the_catalog_answers_is_still_the_catalogs(
    catalog_engine, reads_as, course, question, intent, says, source
):
    reads_as(intent)
    answer = catalog_engine.ask(course, question, session_id="s1")
    assert answer.mode == "catalog" and not answer.refused, answer.answer
    assert says in answer.answer and answer.citations[0]["source"] == source


def test_an_off_topic_question_the_catalog_reads_as_its_own_is_refused(catalog_engine, reads_as):
    reads_as("sections")  # as the intent model read it before its refit
    answer = catalog_engine.ask("csc3100", "Who won the 1998 football world cup?", session_id="s1")
    assert answer.refused and answer.citations == []


def test_the_question_is_retrieved_for_once(catalog_engine, reads_as, monkeypatch):
    # The catalog's answer quotes the syllabus after its own from the retrieval it competed in.
    calls = []
    retrieve = catalog_engine._retriever.retrieve
    monkeypatch.setattr(catalog_engine._retriever, "retrieve", lambda *a, **k: calls.append(a) or retrieve(*a, **k))
    reads_as("prerequisites")
    answer = catalog_engine.ask("csc3100", "What are the prerequisites?")
    assert answer.mode == "catalog" and "MAT-2040" in answer.answer and len(calls) == 1


def test_a_code_the_catalog_lacks_is_answered_by_a_note_that_knows_it(catalog_engine, reads_as, tmp_path):
    """Another institution's code (a syllabus or note of a workspace the catalog does not
    list): the materials answer it; the catalog's "not in the catalog" is for when they don't."""
    reads_as("prerequisites")
    note = tmp_path / "stat_notes.md"
    note.write_text("# STAT 111 notes\n\nSTAT 111 Elementary Statistics requires MATH 100 as a prerequisite.\n")
    assert catalog_engine.add_upload("s1", note).ok
    answer = catalog_engine.ask("csc3100", "What does STAT 111 require?", session_id="s1")
    assert not answer.refused and answer.mode != "catalog" and "MATH 100" in answer.answer
    assert answer.citations[0]["source"] == "stat_notes.md"


@pytest.mark.parametrize(
    ("course", "question"), [("csc3100", "What does STAT 111 require?"), ("ds2010", "CSC3170 的先修课是什么？")]
)
def test_a_code_nobody_knows_is_not_in_the_catalog_never_the_materials_say_nothing(
    catalog_engine, reads_as, course, question
):
    reads_as("prerequisites")
    answer = catalog_engine.ask(course, question, session_id="s1")
    assert answer.refused and answer.mode == "catalog"
    assert "not in the catalog" in answer.answer or "课程目录中没有" in answer.answer


@pytest.mark.parametrize("course", ["csc3100", "ds2010"])
@pytest.mark.parametrize(
    "question, intent, note, says",
    [
        ("Where is the CSC3100 midterm review held?", "sections", "course_notes.md", "Q-12"),
        ("How many bonus credits does the DS2010 poster earn?", "credits", "course_notes.md", "2 bonus credits"),
        ("CSC3100 的期中复习课在哪个教室？", "sections", "课程笔记.md", "R-315"),
        ("DS2010 的小组海报能拿几个附加学分？", "credits", "课程笔记.md", "2 个附加学分"),
    ],
)
def test_a_note_about_a_named_course_answers_what_it_says_of_it_not_the_catalog(
    catalog_engine, reads_as, course, question, intent, note, says
):
    reads_as(intent)
    answer = catalog_engine.ask(course, question, session_id="s2")
    assert not answer.refused and answer.mode != "catalog", answer.answer
    assert answer.citations[0]["source"] == note and says in answer.answer and not _catalog_cited(answer)


@pytest.mark.parametrize(
    "course, question, intent, says, source",
    [
        ("csc3100", "When does CSC3100 meet this term?", "sections", "Tuesdays and Thursdays", "catalog/sections.csv"),
        ("ds2010", "Who teaches CSC3100?", "sections", "Dr. Elena Marsh", "catalog/sections.csv"),
        ("csc3100", "How many credits is DS2010?", "credits", "3 credits", "catalog/courses.csv"),
        ("csc3100", "DS2010 有几个学分？", "credits", "3 学分", "catalog/courses.csv"),
        # The syllabus lists MAT-2040 as its prerequisite, spelt otherwise than the catalog's code.
        ("ds2010", "What can I take after MAT-2040?", "reverse", "CSC3100 Data Structures", "catalog/courses.csv"),
        ("csc3100", "CSC3200 现在叫什么？先修是什么？", "prerequisites", "CSC4120", "catalog/courses.csv"),
    ],
)
def test_a_named_courses_official_facts_stay_the_catalogs_beside_notes_that_name_it(
    catalog_engine, reads_as, course, question, intent, says, source
):
    reads_as(intent)
    answer = catalog_engine.ask(course, question, session_id="s2")
    assert answer.mode == "catalog" and not answer.refused, answer.answer
    assert says in answer.answer and answer.citations[0]["source"] == source


@pytest.mark.parametrize(
    "question, intent, note, says",
    [
        ("Where is the BSc Computer Science orientation held?", "program", "club_notes.md", "Q-88"),
        ("计算机科学理学学士的迎新会在哪个教室？", "program", "迎新笔记.md", "R-66"),
        ("Where is the CSC3100 and DS2010 joint review session?", "sections", "club_notes.md", "Q-30"),
    ],
)
def test_a_note_about_a_program_or_several_courses_answers_what_it_says_of_them(
    catalog_engine, reads_as, question, intent, note, says
):
    reads_as(intent)
    answer = catalog_engine.ask("csc3100", question, session_id="s3")
    assert not answer.refused and answer.mode != "catalog", answer.answer
    assert answer.citations[0]["source"] == note and says in answer.answer and not _catalog_cited(answer)


@pytest.mark.parametrize(
    "question, intent, says, source",
    [
        ("Which courses are in year 2 of the BSc Computer Science?", "program", "CSC3100", "catalog/programs.csv"),
        ("计算机科学理学学士一共要修多少学分？", "program", "128", "catalog/programs.csv"),
        ("How many credits are CSC3100 and DS2010?", "credits", "3 credits", "catalog/courses.csv"),
    ],
)
def test_a_programs_or_several_courses_official_facts_stay_the_catalogs_beside_notes_that_name_them(
    catalog_engine, reads_as, question, intent, says, source
):
    reads_as(intent)
    answer = catalog_engine.ask("csc3100", question, session_id="s3")
    assert answer.mode == "catalog" and not answer.refused, answer.answer
    assert says in answer.answer and answer.citations[0]["source"] == source
