"""What a registrar's catalog holds beyond the first format (issue 42, item 4), read and checked.

The second sample catalog, tests/fixtures/catalog_harbour, is of another shape than
catalog/: codes such as MATH-101 and ECON2105A, bilingual and French sections, rooms.csv and
instructors.csv, a choice group, electives without a year, module minimum credits, credits
per year and a renamed code with its effective term. Each check is one edit of it that must
come out as one `file:row: field: message` problem.
"""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest

from courserag.catalog import cells, timetable
from courserag.catalog.answers import answer_question
from courserag.catalog.codes import codes_in, is_code, normalize_code, resolve_code
from courserag.catalog.load import CatalogError, CatalogSource, load_catalog
from courserag.catalog.model import ANY_YEAR, Where
from courserag.catalog.problems import Problem, Problems

ROOT = Path(__file__).resolve().parents[3]
HARBOUR = ROOT / "tests" / "fixtures" / "catalog_harbour"
SAMPLE = ROOT / "catalog"
AUTUMN = date(2026, 10, 1)


@pytest.fixture(scope="module")
def harbour():
    return load_catalog(HARBOUR)


def _copy(tmp_path: Path, source: Path = HARBOUR) -> Path:
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    return folder


def _edit(folder: Path, name: str, old: str, new: str) -> None:
    path = folder / name
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _problems(folder: Path) -> list[str]:
    with pytest.raises(CatalogError) as caught:
        load_catalog(folder)
    return caught.value.lines


# -- reading each new field ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cell, languages",
    [
        ("en", ("en",)),
        ("zh", ("zh",)),
        ("en;zh", ("en", "zh")),
        (" en ; zh ", ("en", "zh")),
        ("fr", ("fr",)),
        ("EN", ("en",)),
        ("zh-Hant", ("zh-Hant",)),
        ("yue;en", ("yue", "en")),
        ("", ()),
    ],
)
def test_teaching_languages_are_a_list_of_language_codes(cell, languages):
    problems = Problems()
    assert cells.languages(Where("sections.csv", 2), "language", cell, problems) == languages
    assert not problems


@pytest.mark.parametrize(
    "cell, kind",
    [
        ("lecture", "lecture"),
        ("", "lecture"),
        ("Tutorial", "tutorial"),
        ("LEC", "lecture"),
        ("tut", "tutorial"),
        ("Laboratory", "lab"),
        ("workshop", "workshop"),
        ("online", "online"),
    ],
)
def test_section_kinds_read_with_registrars_abbreviations(cell, kind):
    problems = Problems()
    assert timetable.section_kind(Where("sections.csv", 2), cell, problems) == kind
    assert not problems


@pytest.mark.parametrize(
    "typed, code",
    [("MATH-101", "MATH101"), ("math 101", "MATH101"), ("ECON2105A", "ECON2105A"), ("econ2105a", "ECON2105A")],
)
def test_codes_of_other_prefixes_lengths_and_a_suffix_letter(typed, code):
    assert is_code(typed) and normalize_code(typed) == code


def test_a_suffix_letter_is_read_in_a_question_only_as_a_capital():
    assert [c for c, _ in codes_in("Is ECON2105A or ECON2105B offered, or CSC3100s?")] == ["ECON2105A", "ECON2105B"]


def test_a_suffix_letter_a_catalog_never_uses_is_still_a_slip(harbour):
    assert resolve_code("STAT210X", harbour).how == "typo"  # no STAT code takes a suffix: one slip from STAT210
    assert resolve_code("ECON2105C", harbour).how == "unknown"  # well formed (as ECON2105A): a course it may not list
    assert resolve_code("ECON1001X", harbour).how == "unknown"


def test_the_second_catalog_reads_whole(harbour):
    assert (len(harbour.courses), len(harbour.sections), len(harbour.programs)) == (12, 12, 2)
    assert set(harbour.rooms) == {"HB-110", "HB-204", "LIB-3", "ONLINE"} and harbour.rooms["HB-110"].capacity == 120
    assert harbour.rooms["ONLINE"].capacity is None
    assert harbour.instructors["i-chen"].name("zh") == "陈雨桐 博士"
    assert harbour.instructors["i-chen"].name("en") == "Dr. Chen Yutong"


@pytest.mark.parametrize(
    "code, section, kind, languages, room, names",
    [
        ("MATH101", "A1", "lecture", ("en", "zh"), "HB-110 (Harbour Hall)", ["Dr. Chen Yutong"]),
        ("ECON1001", "A1", "lecture", ("en",), "HB-110 (Harbour Hall)", ["Prof. Ngozi Okafor"]),  # "LEC"
        ("COMP1010", "L1", "lab", ("en",), "LIB-3 (Quay Library)", ["Dr. Erik Lindqvist", "Zhao Ming"]),
        ("ECON3410", "W1", "workshop", ("en",), "ONLINE", ["Prof. Ngozi Okafor"]),
        ("LANG1200", "B1", "seminar", ("fr",), "LIB-3 (Quay Library)", []),
    ],
)
def test_sections_read_kinds_languages_rooms_and_instructors(harbour, code, section, kind, languages, room, names):
    (found,) = [s for s in harbour.sections_by_code[code] if s.section == section]
    assert (found.kind, found.languages, found.language) == (kind, languages, ";".join(languages))
    assert harbour.room_label(found) == room and harbour.instructor_names(found, "en") == names


def test_a_renamed_code_keeps_its_effective_term(harbour):
    course = harbour.course("ECON3300")
    assert course.code == "ECON3301" and course.effective_term == "2025FA"
    assert harbour.term(course.effective_term).name_en == "Autumn 2025"


@pytest.mark.parametrize(
    "code, program, year, group, minimum",
    [
        ("MATH101", "BA-ECON", 1, "", 10.0),  # the module's minimum, given on one of its rows
        ("ECON1001", "BA-ECON", 1, "", None),
        ("ECON3410", "BA-ECON", 3, "FIELD", None),  # take one of ECON3410 and ECON3420
        ("HIST1100", "BA-ECON", ANY_YEAR, "", None),  # an elective without a fixed year
        ("ECON3301", "MIN-DATA", 2, "METHODS", None),
    ],
)
def test_requirements_read_groups_any_year_electives_and_module_minimums(harbour, code, program, year, group, minimum):
    (row,) = [r for r in harbour.requirements_by_code[code] if r.program == program]
    assert (row.year, row.group, row.module_min_credits) == (year, group, minimum)


def test_choice_groups_module_minimums_and_year_credits(harbour):
    field = next(r for r in harbour.requirements if r.group == "FIELD")
    assert [r.code for r in harbour.choice_group(field)] == ["ECON3410", "ECON3420"]
    assert harbour.module_minimums == {("BA-ECON", "Foundations"): 10.0, ("BA-ECON", "Electives"): 4.0}
    assert harbour.programs["BA-ECON"].year_credits == (10.0, 9.0, 7.0)
    assert harbour.programs["MIN-DATA"].year_credits == ()


def test_a_catalog_of_the_first_format_reads_as_before():
    """catalog/ has none of the new columns or files: nothing about it changes."""
    sample = load_catalog(SAMPLE)
    assert not sample.rooms and not sample.instructors and not sample.module_minimums
    assert all(len(s.languages) == 1 and s.language in ("en", "zh") for s in sample.sections)
    assert all(r.year >= 1 and not r.group for r in sample.requirements)
    assert all(not c.effective_term for c in sample.courses.values())
    section = sample.sections[0]
    assert sample.room_label(section) == section.room and sample.instructor_names(section, "zh") == list(
        section.instructors
    )


# -- every check, one edit each ---------------------------------------------------------------------

CHECKS = [
    # file, old text, new text, the problem expected (a line's start)
    (
        "sections.csv",
        "10:30,12:20,HB-204,i-chen,en",
        "10:30,12:20,HB-204,i-chen,english",
        "sections.csv:7: language: 'english' is no language code",
    ),
    (
        "sections.csv",
        "09:00,10:20,HB-110,i-chen,en;zh",
        "09:00,10:20,HB-110,i-chen,en;en",
        "sections.csv:2: language: en is listed twice",
    ),
    (
        "sections.csv",
        "2026FA,HIST1100,A1,lecture",
        "2026FA,HIST1100,A1,lectur",
        "sections.csv:7: kind: must be one of lecture, tutorial",
    ),
    (
        "sections.csv",
        "10:30,12:20,HB-204,i-chen",
        "10:30,12:20,HB-999,i-chen",
        "sections.csv:7: room: HB-999 is not in rooms.csv",
    ),
    (
        "sections.csv",
        "10:30,12:20,HB-204,i-chen",
        "10:30,12:20,HB-204,i-nobody",
        "sections.csv:7: instructors: i-nobody is not in instructors.csv",
    ),
    ("sections.csv", "2026FA,HIST1100", "2026FA,HIST9100", "sections.csv:7: code: HIST9100 is not in courses.csv"),
    ("sections.csv", "2026FA,HIST1100", "2026WI,HIST1100", "sections.csv:7: term: '2026WI' is not in terms.csv"),
    ("sections.csv", "Wed,10:30,12:20", "Wed,10:30,10:20", "sections.csv:7: end: 10:20 is not after the start 10:30"),
    (
        "rooms.csv",
        "LIB-3,Quay Library,24",
        "LIB-3,Quay Library,many",
        "rooms.csv:4: capacity: must be a whole number >= 1, but got 'many'",
    ),
    ("rooms.csv", "ONLINE,,", "HB-110,,", "rooms.csv:5: room: HB-110 is listed twice (first at row 2)"),
    (
        "instructors.csv",
        "i-zhao,Zhao Ming",
        "i-chen,Zhao Ming",
        "instructors.csv:5: id: i-chen is listed twice (first at row 2)",
    ),
    ("instructors.csv", "i-zhao,Zhao Ming,赵明", "i-zhao,,赵明", "instructors.csv:5: name_en: empty"),
    (
        "courses.csv",
        "因果推断。,2025FA",
        "因果推断。,2024FA",
        "courses.csv:9: effective_term: '2024FA' is not in terms.csv",
    ),
    (
        "courses.csv",
        "ECON3300,Applied Econometrics",
        ",Applied Econometrics",
        "courses.csv:9: effective_term: only a renamed course",
    ),
    (
        "courses.csv",
        "LANG1200,Academic Writing,学术写作,2",
        "LANG1200,Academic Writing,学术写作,-2",
        "courses.csv:13: credits: must be a number >= 0, but got '-2'",
    ),
    (
        "courses.csv",
        "LANG1200,Academic Writing",
        "HIST1100,Academic Writing",
        "courses.csv:13: code: HIST1100 is listed twice (first at row 12)",
    ),
    (
        "courses.csv",
        "LANG1200,Academic Writing",
        "LANG12,Academic Writing",
        "courses.csv:13: code: 'LANG12' is not a course code",
    ),
    (
        "courses.csv",
        "ECON1001 and MATH-101",
        "ECON1001 and MATH-199",
        "courses.csv:7: prerequisites: MATH199 is not in courses.csv",
    ),
    (
        "courses.csv",
        "Calculus for Economists,经济数学,4,",
        "Calculus for Economists,经济数学,4,ECON3301",
        "courses.csv:2: prerequisites: a cycle MATH101 -> ECON3301",
    ),
    (
        "requirements.csv",
        "ECON3420,required,FIELD,",
        "ECON3420,required,FIELDX,",
        "requirements.csv:9: group: FIELD is a choice of one course",
    ),
    (
        "requirements.csv",
        "BA-ECON,3,Field course,专业方向课,ECON3420",
        "BA-ECON,2,Field course,专业方向课,ECON3420",
        "requirements.csv:10: year: differs from row 9 of the same choice group FIELD",
    ),
    (
        "requirements.csv",
        "ECON1001,required,,",
        "ECON1001,required,,9",
        "requirements.csv:3: module_min_credits: 9 differs from 10 given at row 2",
    ),
    (
        "requirements.csv",
        "MATH-101,required,,10",
        "MATH-101,required,,11",
        "requirements.csv:2: module_min_credits: 11 cannot be met: the courses of Foundations in BA-ECON add up to 10",
    ),
    (
        "requirements.csv",
        "BA-ECON,3,Core,核心,ECON3301",
        "BA-ECON,,Core,核心,ECON3301",
        "requirements.csv:8: year: must be a whole number 1-8, but got '' (only an elective may leave it empty)",
    ),
    (
        "requirements.csv",
        "BA-ECON,,Electives,选修,HIST1100",
        "BA-ECON,,Electives,选修,MATH-102",
        "requirements.csv:12: code: MATH102 is listed twice in BA-ECON (first at row 11)",
    ),
    (
        "requirements.csv",
        "BA-ECON,,Electives,选修,HIST1100",
        "BA-ECON,,Electives,选修,HIST1999",
        "requirements.csv:12: code: HIST1999 is not in courses.csv",
    ),
    (
        "programs.csv",
        "40,10;9;7",
        "20,10;9;7",
        "programs.csv:2: year_credits: add up to 26, more than the total_credits 20",
    ),
    ("programs.csv", "10;9;7", "10;nine;7", "programs.csv:2: year_credits: must be a number >= 0, but got 'nine'"),
]


@pytest.mark.parametrize(
    "name, old, new, problem", CHECKS, ids=[c[3].split(":")[0] + ":" + c[3].split(": ")[1] for c in CHECKS]
)
def test_each_check_names_file_row_and_field(tmp_path, name, old, new, problem):
    folder = _copy(tmp_path)
    _edit(folder, name, old, new)
    lines = _problems(folder)
    assert any(line.startswith(problem) for line in lines), lines


def test_every_problem_is_reported_at_once(tmp_path):
    folder = _copy(tmp_path)
    for name, old, new, _ in (CHECKS[0], CHECKS[3], CHECKS[12], CHECKS[26]):
        _edit(folder, name, old, new)
    lines = _problems(folder)
    for _, _, _, problem in (CHECKS[0], CHECKS[3], CHECKS[12], CHECKS[26]):
        assert any(line.startswith(problem) for line in lines), lines


def test_a_missing_optional_file_is_no_problem_and_its_references_are_free_text(tmp_path):
    folder = _copy(tmp_path)
    (folder / "rooms.csv").unlink()
    (folder / "instructors.csv").unlink()
    catalog = load_catalog(folder)
    section = catalog.sections_by_code["MATH101"][0]
    assert catalog.room_label(section) == "HB-110" and catalog.instructor_names(section, "en") == ["i-chen"]


def test_an_optional_file_without_its_columns_is_named(tmp_path):
    folder = _copy(tmp_path)
    (folder / "rooms.csv").write_text("room,seats\nHB-110,120\n", encoding="utf-8")
    assert "rooms.csv: the header lacks building, capacity" in _problems(folder)


@pytest.mark.parametrize(
    "problem, said",
    [
        (Problem("courses.csv", 15, "credits", "must be a number"), "courses.csv:15: credits: must be a number"),
        (Problem("terms.csv", 3, "", "more cells than the header has"), "terms.csv:3: more cells than the header has"),
        (Problem("programs.csv", None, "", "missing from x"), "programs.csv: missing from x"),
        (Problem("", None, "", "could not be read"), "could not be read"),
    ],
)
def test_a_problem_is_said_as_file_row_field_message(problem, said):
    assert str(problem) == said


# -- a failing catalog never replaces a good one --------------------------------------------------------


def test_an_edited_catalog_that_fails_leaves_the_good_one_in_use_until_fixed(tmp_path):
    folder = _copy(tmp_path)
    source = CatalogSource(folder)
    good = source.catalog
    assert good is not None and source.refresh() is None and source.catalog is good  # unchanged: not read again
    _edit(folder, *CHECKS[3][:3])
    error = source.refresh()
    assert error is not None and any(line.startswith(CHECKS[3][3]) for line in error.lines)
    assert source.catalog is good and source.error is error
    _edit(folder, "sections.csv", "HB-999", "LIB-3")
    assert source.refresh() is None and source.error is None
    assert source.catalog is not good and source.catalog.room_label(source.catalog.sections[5]).startswith("LIB-3")


def test_a_catalog_failing_at_first_start_leaves_none_in_use(tmp_path):
    folder = _copy(tmp_path)
    _edit(folder, *CHECKS[0][:3])
    source = CatalogSource(folder)
    assert source.catalog is None and source.error is not None


# -- the new data where the catalog's answers already say such things ---------------------------------


@pytest.mark.parametrize(
    "question, said",
    [
        (
            "Which sections of MATH-101 run this term?",
            ["HB-110 (Harbour Hall), Dr. Chen Yutong, taught in English and Chinese", "Zhao Ming, taught in Chinese"],
        ),
        ("Who teaches ECON3301 next term?", ["Dr. Chen Yutong and Prof. Ngozi Okafor", "seminar"]),
        ("Which sections of LANG1200 run next term?", ["taught in fr"]),
        (
            "How many credits is ECON3300?",
            ["former code of ECON3301 Econometrics; the new code took effect in Autumn 2025"],
        ),
        ("Is HIST1100 required for BA Economics?", ["an elective for any year (Electives)"]),
        (
            "What courses does BA Economics require in year 3?",
            [
                "Year 3 (7 credits required)",
                "one of ECON3410 Behavioural Economics (3) or ECON3420 Development Economics (3)",
            ],
        ),
    ],
)
def test_answers_show_rooms_instructors_languages_groups_and_renaming(harbour, question, said, read_intents):
    reply = answer_question(question, harbour, AUTUMN, None, read_intents)
    assert reply is not None and not reply.refused
    for words in said:
        assert words in reply.text, reply.text


def test_an_optional_file_with_no_rows_leaves_every_reference_unknown(tmp_path):
    """rooms.csv present but empty is a list of no rooms, not a catalog without rooms."""
    folder = _copy(tmp_path)
    (folder / "rooms.csv").write_text("room,building,capacity\n", encoding="utf-8")
    lines = _problems(folder)
    assert len(lines) == 12 and all(": room: " in line and "is not in rooms.csv" in line for line in lines)
