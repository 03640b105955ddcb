"""Catalog questions detected and answered exactly, and routed by the engine (courserag/catalog/)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from courserag.catalog.answers import answer_question
from courserag.catalog.load import load_catalog
from courserag.catalog.questions import detect
from courserag.engine.catalog_path import CatalogPath
from courserag.engine.requests import Question


def catalog_reply(engine, course_id, text, scope, history):
    """What the engine's catalog path says to one question (None: the materials answer)."""
    return CatalogPath(engine.parts, engine.catalog, None).reply(
        Question(course_id, text, scope=scope, history=history)
    )


SAMPLE = Path(__file__).resolve().parents[3] / "catalog"
TODAY = date(2026, 12, 1)  # in the sample's Fall 2026


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(SAMPLE)


@pytest.mark.parametrize(
    "question, workspace, intents, targets",
    [
        ("CSC3100 的先修课是什么？", None, ("prerequisites",), ["CSC3100"]),
        ("How many credits is DS2010?", None, ("credits",), ["DS2010"]),
        ("Which sections of CSC3100 run next term?", None, ("sections",), ["CSC3100"]),
        ("What can I take after CSC3100?", None, ("reverse",), ["CSC3100"]),
        ("哪些课程需要 CSC3100 作为先修？", None, ("reverse",), ["CSC3100"]),
        ("Is MAT2040 required for the data science major, and in which year?", None, ("program",), ["MAT2040"]),
        ("What are the prerequisites?", "csc3100", ("prerequisites",), ["CSC3100"]),
        ("这门课几个学分？", "ds2010", ("credits",), ["DS2010"]),
        ("Do I need MAT2040 before this course?", "csc3100", ("prerequisites",), ["CSC3100"]),
        ("这门课是哪些课的先修课？", "csc3100", ("reverse",), ["CSC3100"]),
        ("修完 CSC3100 后可以选哪些课？", None, ("reverse",), ["CSC3100"]),
        ("Is CSC4120 required for the CS major?", None, ("program",), ["CSC4120"]),
        ("Who teaches Operating Systems next term?", None, ("sections",), ["CSC3150"]),
        ("What is Machine Learning about?", None, ("description",), ["DS3020"]),
        ("Is DS2010 compulsory for data science majors?", None, ("program",), ["DS2010"]),
        ("When does CSC4140 meet?", None, ("sections",), ["CSC4140"]),
    ],
)
def test_catalog_questions_are_detected(catalog, question, workspace, intents, targets, read_intents):
    q = detect(question, catalog, TODAY, catalog.by_workspace(workspace) if workspace else None, read_intents)
    assert q is not None and q.intents == intents
    assert [t.course.code for t in q.targets] == targets


@pytest.mark.parametrize(
    "question",
    [
        "When is the midterm exam?",
        "Which room is the final exam in?",
        "What is the late policy for homework?",
        "期中考试在什么时间、什么地点？",
        "Why is merge sort stable?",
        "助教的答疑时间是什么时候？",
        "What does week 3 cover?",
        "What is the worst-case running time of quicksort, and when does it happen?",
    ],
)
def test_material_questions_are_not_catalog_questions(catalog, question, read_intents):
    assert detect(question, catalog, TODAY, catalog.by_workspace("csc3100"), read_intents) is None


@pytest.mark.parametrize(
    "question, facts, rows",
    [
        ("How many credits is DS2010?", ["3 credits"], ["courses.csv row 28"]),
        (
            "How many credits are CSC3100 and DS2010 together?",
            ["Together, CSC3100 Data Structures and DS2010 Introduction to Data Science are worth 6 credits."],
            ["courses.csv row 15", "courses.csv row 28"],
        ),
        ("计算机科学专业大二要修多少学分？", ["第二学年（大二）（必修课合计 17 学分）"], ["programs.csv row 2"]),
        ("数据结构是几个学分？", ["3 学分"], ["courses.csv row 15"]),
        ("What are the prerequisites of CSC3100?", ["CSC1001", "MAT2040"], ["courses.csv row 15"]),
        ("CSC3100 的先修课是什么？", ["CSC1001 Python 程序设计 和 MAT2040 线性代数与离散数学"], ["courses.csv row 15"]),
        (
            "What can I take after CSC3100?",
            ["CSC3150", "CSC4120", "DS3020"],
            ["courses.csv row 16", "courses.csv row 31"],
        ),
        (
            "Which sections of CSC3100 run next term, when, where and with whom?",
            ["Spring 2027", "Mondays and Wednesdays 13:30–14:50", "SCI-201", "Dr. Rafael Okoye"],
            ["sections.csv row 25"],
        ),
        (
            "DS2010 这学期什么时候上课？",
            ["2026 秋季", "每周一、周三 14:00–15:20", "理学楼 305"],
            ["sections.csv row 40"],
        ),
        ("Is STA3020 offered this term?", ["not offered in Fall 2026", "Spring 2027"], ["courses.csv row 9"]),
        (
            "Is MAT2040 required for the data science major, and in which year?",
            ["required in year 2"],
            ["requirements.csv row 34"],
        ),
        ("计算机科学专业的学生必须在哪一年修读这门课？", ["第二学年（大二）", "必修"], ["requirements.csv row 51"]),
        (
            "What are the courses in year 1 of Computer Science?",
            ["Year 1", "CSC1001", "PHY1001"],
            ["programs.csv row 2"],
        ),
        ("数据科学专业大二必修哪些课？", ["第二学年（大二）", "MAT2040", "STA2001"], ["programs.csv row 3"]),
        (
            "I have taken CSC1001 and MAT1001, can I take CSC3100?",
            ["do not yet meet", "MAT2040"],
            ["courses.csv row 15"],
        ),
        (
            "I have taken CSC1001 and MAT2040, can I take CSC3100?",
            ["you meet the prerequisites"],
            ["courses.csv row 15"],
        ),
        (
            "我没修过 MAT2040，还能选 CSC3100 吗？",
            ["未修 MAT2040 线性代数与离散数学，不满足 CSC3100 的先修要求"],
            ["courses.csv row 15"],
        ),
        ("I haven't taken CSC3100, can I take DS3020?", ["is not indispensable"], ["courses.csv row 31"]),
        ("How many credits is CSV3100?", ["Read CSV3100 as CSC3100", "3 credits"], ["courses.csv row 15"]),
        ("What are the prerequisites of CSC3020?", ["cross-listed", "DS3020", "STA2001"], ["courses.csv row 31"]),
        ("CSC3200 的先修课程是什么？", ["旧课程代码", "CSC4120"], ["courses.csv row 19"]),
    ],
)
def test_answers_state_the_facts_and_cite_their_rows(catalog, question, facts, rows, read_intents):
    reply = answer_question(question, catalog, TODAY, catalog.by_workspace("ds2010"), read_intents)
    assert reply is not None and not reply.refused
    for fact in facts:
        assert fact in reply.text, reply.text
    cited = [f"{f.where.file} row {row}" for f in reply.facts for row in (f.rows or (f.where.row,))]
    for row in rows:
        assert row in cited, cited
    assert "[1]" in reply.text


@pytest.mark.parametrize(
    "question, text",
    [
        (
            "What are the prerequisites of CSC3170?",
            "CSC3170 is not in the catalog. Did you mean CSC3100, CSC3150 or CSC3180?",
        ),
        ("DS2020 有几个学分？", "课程目录中没有 DS2020。您指的是 DS2010、DS2030、DS3020 或 DS4020 吗？"),
        ("Which sections of XYZ9999 run this term?", "XYZ9999 is not in the catalog."),
    ],
)
def test_unknown_codes_are_refused_never_the_nearest(catalog, question, text, read_intents):
    reply = answer_question(question, catalog, TODAY, catalog.by_workspace("csc3100"), read_intents)
    assert reply.refused and reply.text == text and reply.facts == []


def _engine(tmp_path, fake_embedder, **changes):
    from courserag.config.settings import Settings
    from courserag.courses.directory import load_course_directory
    from courserag.engine.facade import RagEngine
    from courserag.stores import LocalCourseStore

    settings = Settings(data_dir=tmp_path, catalog_today="2026-12-01", **changes)
    store = LocalCourseStore(tmp_path / "index", fake_embedder.dim)
    return RagEngine(settings, load_course_directory(settings.course_directory), store, fake_embedder)


def test_the_engine_answers_another_courses_catalog_facts_with_citations(tmp_path, fake_embedder):
    engine = _engine(tmp_path, fake_embedder)
    answer = engine.ask("csc3100", "How many credits is DS2010?")
    assert not answer.refused and answer.mode == "catalog" and "3 credits" in answer.answer
    data = answer.to_json()
    cite = data["citations"][0]
    assert cite["source"] == "catalog/courses.csv" and cite["locator"] == "row 28 · DS2010"
    assert cite["catalog"] == {"file": "catalog/courses.csv", "rows": [28], "record": "DS2010"}


def test_the_engine_refuses_an_unknown_code_from_the_catalog(tmp_path, fake_embedder):
    answer = _engine(tmp_path, fake_embedder).ask("ds2010", "CSC3170 的先修课程是什么？")
    assert answer.refused and answer.citations == []
    assert answer.answer == "课程目录中没有 CSC3170。您指的是 CSC3100、CSC3150 或 CSC3180 吗？"


def test_without_a_catalog_the_engine_answers_from_the_materials(tmp_path, fake_embedder):
    engine = _engine(tmp_path, fake_embedder, catalog=None)
    answer = engine.ask("csc3100", "How many credits is DS2010?")
    assert answer.mode != "catalog"


def test_settings_read_the_catalog_variables(tmp_path):
    from courserag.config.settings import Settings
    from courserag.errors import ConfigError

    assert Settings.from_env({"CATALOG": str(tmp_path)}).catalog == tmp_path
    assert Settings.from_env({"CATALOG": "off"}).catalog is None
    assert Settings.from_env({"CATALOG_TODAY": "2027-03-01"}).catalog_date() == date(2027, 3, 1)
    with pytest.raises(ConfigError, match="CATALOG_TODAY"):
        Settings.from_env({"CATALOG_TODAY": "March"})


def test_own_course_prerequisites_come_from_the_catalog_then_the_syllabus(engine):
    answer = engine.ask("csc3100", "What are the prerequisites for CSC3100?")
    assert answer.mode == "catalog" and not answer.refused
    catalog_part, _, material_part = answer.answer.partition("The course materials say:")
    assert "Prerequisites of CSC3100 Data Structures" in catalog_part and "[1]" in catalog_part
    assert "MAT-2040" in material_part
    sources = [c["source"] for c in answer.citations]
    assert sources[0] == "catalog/courses.csv" and "syllabus.md" in sources[1:]
    assert [c["n"] for c in answer.citations] == list(range(1, len(sources) + 1))


@pytest.mark.parametrize(
    "course, question, name",
    [
        ("csc3100", "Who teaches CSC3100?", "Dr. Elena Marsh"),
        ("ds2010", "谁教这门课", "李明华 教授"),
    ],
)
def test_the_catalog_says_who_teaches_a_course_this_term(tmp_path, fake_embedder, course, question, name):
    answer = _engine(tmp_path, fake_embedder).ask(course, question)
    assert answer.mode == "catalog" and name in answer.answer
    assert all(c["source"] == "catalog/sections.csv" for c in answer.citations)


def test_a_follow_up_about_the_workspace_is_left_to_the_materials(tmp_path, fake_embedder):
    engine = _engine(tmp_path, fake_embedder)
    history = [
        {"role": "user", "content": "When is the midterm exam?"},
        {"role": "assistant", "content": "On 2026-10-20."},
    ]
    assert catalog_reply(engine, "csc3100", "Which room is it in?", "both", history) is None
    assert catalog_reply(engine, "csc3100", "How many credits is DS2010?", "both", history) is not None


# -- a catalog of another shape: nothing above is tied to the sample's codes or names ------

OTHER = {
    "terms.csv": (
        "term,name_en,name_zh,start,end\n26T1,Autumn 2026,2026 秋季学期,2026-08-20,2026-12-20\n"
        "27T2,Spring 2027,2027 春季学期,2027-01-10,2027-05-30\n"
    ),
    "courses.csv": (
        "code,title_en,title_zh,credits,prerequisites,corequisites,exclusions,cross_listed,former_codes,former_titles,workspace,description_en,description_zh\n"
        "COMP1100,Programming Fundamentals,程序设计基础,6,,,,,,,,Intro.,入门。\n"
        "COMP2300,Computer Systems,计算机系统,6,COMP1100,,,,,,,Systems.,系统。\n"
        "ELEC2100,Circuits and Signals,电路与信号,6,MATH1010,,,,,,,Circuits.,电路。\n"
        "MATH1010,Mathematical Methods,数学方法,6,,,,,,,,Maths.,数学。\n"
        "ELEC3200,Embedded Systems,嵌入式系统,6,COMP2300 and (ELEC2100 or MATH1010),,,COMP3200,ELEC3020,"
        "Microcontrollers,,Embedded.,嵌入式。\n"
    ),
    "sections.csv": (
        "term,code,section,kind,days,start,end,room,instructors,language\n"
        "26T1,COMP1100,A,lecture,Tue;Fri,09:00,10:50,Hall 7,Prof. Kim Lau,en\n"
        "27T2,ELEC3200,A,lecture,Wed,14:00,16:50,E-Lab 2,何静 教授,zh\n"
    ),
    "programs.csv": "program,name_en,name_zh,total_credits\nBE-EE,BEng Electrical Engineering,电气工程工学学士,192\n",
    "requirements.csv": (
        "program,year,module_en,module_zh,code,kind\n"
        "BE-EE,1,Foundations,基础,COMP1100,required\nBE-EE,1,Foundations,基础,MATH1010,required\n"
        "BE-EE,2,Core,核心,ELEC2100,required\nBE-EE,3,Core,核心,ELEC3200,required\n"
    ),
}


@pytest.fixture(scope="module")
def other(tmp_path_factory):
    folder = tmp_path_factory.mktemp("other-catalog")
    for name, text in OTHER.items():
        (folder / name).write_text(text, encoding="utf-8")
    return load_catalog(folder)


@pytest.mark.parametrize(
    "question, facts, refused",
    [
        ("How many credits is comp 1100?", ["6 credits"], False),
        ("ELEC3200 的先修课程是什么？", ["COMP2300", "ELEC2100 电路与信号 或 MATH1010 数学方法 中的一门"], False),
        ("What can I take after Computer Systems?", ["ELEC3200"], False),
        (
            "When is COMP1100 taught this semester and where?",
            ["Autumn 2026", "Tuesdays and Fridays 09:00–10:50", "Hall 7", "Prof. Kim Lau"],
            False,
        ),
        ("嵌入式系统下学期谁教？", ["2027 春季学期", "何静 教授"], False),
        ("Is ELEC3200 required for electrical engineering, and in which year?", ["required in year 3"], False),
        ("What are the prerequisites of ELEC3020?", ["former code", "COMP2300"], False),
        ("How many credits is COMP3200?", ["cross-listed", "ELEC3200"], False),
        ("How many credits is COMPP1100?", ["Read COMPP1100 as COMP1100"], False),
        ("What are the prerequisites of COMP1110?", ["COMP1110 is not in the catalog."], True),
        ("电气工程专业大一必修哪些课？", ["COMP1100", "MATH1010", "第一学年（大一）"], False),
    ],
)
def test_another_catalog_is_answered_the_same_way(other, question, facts, refused, read_intents):
    reply = answer_question(question, other, date(2026, 9, 15), None, read_intents)
    assert reply is not None and reply.refused is refused
    for fact in facts:
        assert fact in reply.text, reply.text


@pytest.mark.parametrize(
    "text, year",
    [
        ("what does the program require in year 2", 2),
        ("courses of the 3rd year", 3),
        ("second-year courses", 2),
        ("sophomore courses", 2),
        ("大二必修", 2),
        ("第三学年", 3),
        ("第 4 年", 4),
        ("year four", 4),
        ("the second course", None),
        ("what is required", None),
    ],
)
def test_years_of_study_are_read(text, year):
    from courserag.catalog.questions import find_year

    assert find_year(text) == year


def test_only_the_workspaces_own_unknown_code_is_left_to_its_materials(tmp_path, fake_embedder):
    from dataclasses import replace as change

    from courserag.courses.directory import CourseDirectory

    engine = _engine(tmp_path, fake_embedder)
    outside = change(engine.course("csc3100"), id="stat101", name="STAT101 Statistics")  # no catalog course
    engine.directory = CourseDirectory((*engine.directory.courses, outside))
    assert catalog_reply(engine, "stat101", "What are the prerequisites for STAT101?", "both", []) is None
    assert catalog_reply(
        engine, "stat101", "How many credits is DS2010?", "both", []
    ).facts  # known codes still answered
    assert catalog_reply(engine, "csc3100", "What are the prerequisites for STAT101?", "both", []).refused
    assert catalog_reply(engine, "stat101", "What are the prerequisites for Operating Systems?", "both", []).facts
    assert catalog_reply(engine, "csc3100", "What are the prerequisites for Operating Systems?", "both", []).facts


@pytest.mark.parametrize(
    ("rows", "credits"),
    [
        ([("CSC1001", "required", ""), ("MAT1001", "required", "")], 6),
        ([("CSC1001", "required", ""), ("MAT2050", "elective", "")], 3),  # electives are not required
        ([("CSC1001", "required", "g1"), ("GEN1002", "required", "g1")], 2),  # take one of: the smaller
        ([("MAT2050", "elective", "")], 0),
    ],
)
def test_a_years_required_credits_count_a_choice_group_once(catalog, rows, credits):
    from courserag.catalog.answers import required_credits
    from courserag.catalog.model import Requirement, Where

    where = Where("requirements.csv", 2)
    listed = [Requirement("BSC-CS", 1, "m", "m", code, kind, where, group) for code, kind, group in rows]
    assert required_credits(listed, catalog) == credits


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "How many credits is CSC3100 and what are its prerequisites?",
            ["How many credits is CSC3100", "what are its prerequisites?"],
        ),
        ("Is CSC3100 offered this term, and who teaches it?", ["Is CSC3100 offered this term", "who teaches it?"]),
        ("CSC3100 几个学分？先修课是什么？", ["CSC3100 几个学分？", "先修课是什么？"]),
        ("I passed CSC1001 and MAT2040. Can I take CSC3100?", ["I passed CSC1001 and MAT2040.", "Can I take CSC3100?"]),
        # one question: "and" joins names, a decimal point ends no sentence
        ("What is Design and Analysis of Algorithms about?", ["What is Design and Analysis of Algorithms about?"]),
        ("Can I take CSC3100 with a 3.5 GPA?", ["Can I take CSC3100 with a 3.5 GPA?"]),
    ],
)
def test_a_question_that_asks_two_things_is_read_in_its_parts(question, parts):
    from courserag.catalog.questions import question_parts

    assert question_parts(question) == parts


@pytest.mark.parametrize(
    ("question", "intents"),
    [
        ("How many credits is CSC3100 and what are its prerequisites?", ("credits", "prerequisites")),
        ("MAT2040 是数据科学专业的必修课吗？几个学分？", ("program", "credits")),
        ("What are the prerequisites of DS3020 and which courses need it afterwards?", ("reverse", "prerequisites")),
        ("Which courses need CSC3100 as a prerequisite?", ("reverse",)),  # one part: the whole's reading
    ],
)
def test_each_part_of_a_two_part_question_is_answered(catalog, question, intents, read_intents):
    q = detect(question, catalog, TODAY, None, read_intents)
    assert q is not None and set(intents) <= set(q.intents) and len(q.intents) == len(intents)
