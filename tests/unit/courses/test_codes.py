import pytest

from courserag.courses.codes import check_codes, course_codes, typo_of
from courserag.courses.directory import Course, CourseDirectory

CSC = Course("csc3100", "CSC3100 Data Structures", "d", "en", "docs")
DS = Course("ds2010", "DS2010 数据科学导论", "d", "zh", "docs")
DIRECTORY = CourseDirectory((CSC, DS))


@pytest.mark.parametrize(
    "text, codes",
    [
        ("When is the CSC3100 midterm?", ["CSC3100"]),
        ("mat 2040 and MAT-2040", ["MAT2040"]),
        ("HW3 and policy AI-2026-01 and week 2026", []),  # assignment and policy ids are no course codes
        ("ECE3050《信号与数据分析》", ["ECE3050"]),
    ],
)
def test_course_codes(text, codes):
    assert course_codes(text) == codes


@pytest.mark.parametrize(
    "code, expected",
    [("CSC310", "CSC3100"), ("CSC31000", "CSC3100"), ("CSC3170", None), ("DS2020", None)],
)
def test_only_malformed_codes_are_typos(code, expected):
    assert typo_of(code, {"CSC3100", "DS2010"}) == expected


@pytest.mark.parametrize(
    "question, course, other, foreign",
    [
        ("When is the DS2010 midterm exam?", CSC, ["DS2010"], []),
        ("When is the CSC3170 midterm exam?", CSC, [], ["CSC3170"]),
        ("What are the prerequisites for CSC3100?", CSC, [], []),
        ("CSC3100 的期中考试在哪个教室？", DS, ["CSC3100"], []),
        ("What is the late policy for MAT-2040?", CSC, [], ["MAT2040"]),
    ],
)
def test_check_codes(question, course, other, foreign):
    check = check_codes(question, course, DIRECTORY)
    assert [code for code, _ in check.other_courses] == other and list(check.foreign) == foreign
    assert check.about_another_course is bool(other)
