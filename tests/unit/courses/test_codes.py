import pytest

from courserag.courses.codes import check_codes, course_codes, typo_of, written_as_codes
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


@pytest.mark.parametrize(
    "question, foreign",
    [
        ("Do I pass if the group gets 100% on the project?", []),  # a score, not the course GETS100
        ("what if everyone gets 100 on the quiz?", []),  # lower case: an ordinary word and number
        ("Is MATH 1010 a prerequisite?", ["MATH1010"]),  # written in capitals: a code
        ("is csc 3170 offered?", ["CSC3170"]),  # a listed course's letters, in any case
        ("Does ECE 3050 count at 100%?", ["ECE3050"]),
    ],
)
def test_foreign_codes_are_written_as_codes(question, foreign):
    assert list(check_codes(question, CSC, DIRECTORY).foreign) == foreign


@pytest.mark.parametrize(
    "text, prefixes, codes",
    [
        ("gets 100% and MAT-2040", (), ["MAT2040"]),
        ("ds 2010 and abc 2010", ("ds",), ["DS2010"]),
        ("CSC3100 is 100%", (), ["CSC3100"]),
    ],
)
def test_written_as_codes(text, prefixes, codes):
    assert written_as_codes(text, prefixes) == codes
