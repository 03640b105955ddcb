"""The catalog's format, loader and code resolution (courserag/catalog/)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench.catalog import write_catalog
from courserag.catalog.codes import mentions, normalize_code, one_slip, resolve_code
from courserag.catalog.load import CatalogError, CatalogSource, load_catalog
from courserag.catalog.model import AllOf, AnyOf, Need
from courserag.catalog.prereq import PrereqSyntaxError, codes_of, missing, parse_prereq, satisfied, say

SAMPLE = Path(__file__).resolve().parents[3] / "catalog"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(SAMPLE)


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "catalog"
    shutil.copytree(SAMPLE, folder)
    return folder


def _edit(folder: Path, name: str, old: str, new: str) -> None:
    path = folder / name
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_sample_catalog_has_the_promised_shape(catalog):
    assert 35 <= len(catalog.courses) <= 45
    assert len(catalog.programs) == 2 and len(catalog.terms) == 2
    assert catalog.by_workspace("csc3100").code == "CSC3100" and catalog.by_workspace("ds2010").code == "DS2010"
    assert any(c.cross_listed for c in catalog.courses.values()) and any(
        c.former_codes for c in catalog.courses.values()
    )
    offered = {code: {s.term for s in sections} for code, sections in catalog.sections_by_code.items()}
    assert any(len(terms) == 1 for terms in offered.values())

    def depth(code: str) -> int:
        needs = codes_of(catalog.courses[code].prerequisites)
        return 1 + max((depth(catalog.aliases[n]) for n in needs), default=0)

    assert max(depth(code) for code in catalog.courses) >= 4  # chains three prerequisites deep


@pytest.mark.parametrize(
    "text, expected",
    [
        ("CSC1001", Need("CSC1001")),
        ("csc-1001 and MAT 1001", AllOf((Need("CSC1001"), Need("MAT1001")))),
        ("CSC1001 and (MAT1001 or MAT1002)", AllOf((Need("CSC1001"), AnyOf((Need("MAT1001"), Need("MAT1002")))))),
        ("AA1001 or BB1002 and CC1003", AnyOf((Need("AA1001"), AllOf((Need("BB1002"), Need("CC1003")))))),
        ("", None),
    ],
)
def test_prerequisites_parse(text, expected):
    assert parse_prereq(text) == expected


@pytest.mark.parametrize(
    "text", ["CSC1001 and", "(CSC1001 or MAT1001", "CSC1001 MAT1001", "CSC1001 and or MAT1001", "calculus"]
)
def test_malformed_prerequisites_are_refused(text):
    with pytest.raises(PrereqSyntaxError):
        parse_prereq(text)


@pytest.mark.parametrize(
    "done, met, left",
    [
        ({"CSC1001", "MAT1001"}, True, None),
        ({"CSC1001", "MAT1002"}, True, None),
        ({"CSC1001"}, False, "either MAT1001 or MAT1002"),
        ({"MAT1001"}, False, "CSC1001"),
        (set(), False, "CSC1001 and (either MAT1001 or MAT1002)"),
    ],
)
def test_prerequisites_are_checked_against_completed_courses(done, met, left):
    expr = parse_prereq("CSC1001 and (MAT1001 or MAT1002)")
    assert satisfied(expr, done) is met
    assert (say(missing(expr, done), "en") if left else missing(expr, done)) == left


@pytest.mark.parametrize(
    "text, lang, words",
    [
        ("CSC1001 and (MAT1001 or MAT1002)", "en", "CSC1001 and (either MAT1001 or MAT1002)"),
        ("CSC1001 and (MAT1001 or MAT1002)", "zh", "CSC1001 和 （MAT1001 或 MAT1002 中的一门）"),
        ("AA1001 and BB1001 and CC1001", "en", "AA1001, BB1001 and CC1001"),
        ("", "zh", "无"),
    ],
)
def test_prerequisites_in_plain_words(text, lang, words):
    assert say(parse_prereq(text), lang) == words


@pytest.mark.parametrize(
    "typed, how, code",
    [
        ("CSC3100", "code", "CSC3100"),
        ("csc3100", "code", "CSC3100"),
        ("CSC 3100", "code", "CSC3100"),
        ("csc-3100", "code", "CSC3100"),
        ("ＣＳＣ３１００", "code", "CSC3100"),
        ("CSC3020", "alias", "DS3020"),  # cross-listed
        ("CSC3200", "alias", "CSC4120"),  # former code of a renamed course
        ("CSV3100", "typo", "CSC3100"),  # no catalog code starts with CSV
        ("CS3100", "typo", "CSC3100"),
        ("DS201", "typo", "DS2010"),  # no DS code has three digits
        ("CSC3170", "unknown", None),  # well formed: a real course the catalog does not list
        ("DS2020", "unknown", None),
        ("CSC310", "unknown", None),  # one slip from several codes
        ("XYZ9999", "unknown", None),
    ],
)
def test_codes_resolve_as_typed(catalog, typed, how, code):
    resolved = resolve_code(typed, catalog)
    assert resolved.how == how
    assert (resolved.course.code if resolved.course else None) == code


@pytest.mark.parametrize(
    "a, b, slip",
    [
        ("CSC3100", "CSV3100", True),
        ("CSC3100", "CSC310", True),
        ("CSC3100", "CSC3010", True),
        ("CSC3100", "CSC3100", False),
        ("CSC3100", "CSC3011", False),
        ("CSC3100", "CS310", False),
    ],
)
def test_one_slip(a, b, slip):
    assert one_slip(a, b) is slip


@pytest.mark.parametrize(
    "text, codes",
    [
        ("数据结构的先修课是什么？", ["CSC3100"]),
        ("Is Calculus II harder than Calculus I?", ["MAT1002", "MAT1001"]),
        ("How many credits is data structures?", ["CSC3100"]),
        ("What about Algorithms?", ["CSC4120"]),  # a former title
        ("CSC3100 Data Structures", ["CSC3100"]),  # a code and its title count once
    ],
)
def test_titles_name_courses(catalog, text, codes):
    assert [r.course.code for r, _ in mentions(text, catalog)] == codes


def test_normalize_code():
    assert normalize_code(" ｃｓｃ－３１００ ") == "CSC3100"


@pytest.mark.parametrize(
    "name, old, new, problem",
    [
        (
            "courses.csv",
            "CSC3100,Data Structures,数据结构,3,",
            "CSC3100,Data Structures,数据结构,three,",
            "courses.csv:15: credits",
        ),
        (
            "courses.csv",
            "CSC1001 and MAT2040,,,,,,csc3100",
            "CSC1001 and MAT9999,,,,,,csc3100",
            "courses.csv:15: prerequisites: MAT9999",
        ),
        (
            "courses.csv",
            "CSC1001 and MAT2040,,,,,,csc3100",
            "CSC1001 and (MAT2040,,,,,,csc3100",
            "courses.csv:15: prerequisites",
        ),
        ("courses.csv", "MAT1001,Calculus I,微积分 I,3,,", "MAT1001,Calculus I,微积分 I,3,CSC4900,", "a cycle"),
        (
            "sections.csv",
            "2026FA,CSC3100,L01,lecture,Tue;Thu,10:30",
            "2026FA,CSC3100,L01,lecture,Tue;Thux,10:30",
            "sections.csv:23: days",
        ),
        (
            "sections.csv",
            "2026FA,CSC3100,L01,lecture,Tue;Thu,10:30",
            "2026XX,CSC3100,L01,lecture,Tue;Thu,10:30",
            "sections.csv:23: term",
        ),
        ("sections.csv", "Tue;Thu,10:30,11:50,SCI-201", "Tue;Thu,10:30,25:50,SCI-201", "sections.csv:23: end"),
        (
            "requirements.csv",
            "BSC-DS,2,Mathematics,数学基础,MAT2040",
            "BSC-DS,two,Mathematics,数学基础,MAT2040",
            "requirements.csv:34: year",
        ),
        (
            "requirements.csv",
            "BSC-DS,2,Mathematics,数学基础,MAT2040,required",
            "BSC-DS,2,Mathematics,数学基础,MAT2040,optional",
            "requirements.csv:34: kind",
        ),
        (
            "terms.csv",
            "2026FA,Fall 2026,2026 秋季,2026-09-01",
            "2026FA,Fall 2026,2026 秋季,2026-13-01",
            "terms.csv:2: start",
        ),
    ],
)
def test_problems_name_file_row_and_field(tmp_path, name, old, new, problem):
    folder = _copy(tmp_path)
    _edit(folder, name, old, new)
    with pytest.raises(CatalogError) as caught:
        load_catalog(folder)
    assert any(problem in p for p in caught.value.lines), caught.value.lines


def test_a_missing_file_is_named(tmp_path):
    folder = _copy(tmp_path)
    (folder / "programs.csv").unlink()
    with pytest.raises(CatalogError, match="programs.csv: missing"):
        load_catalog(folder)


def test_a_broken_catalog_never_replaces_a_good_one(tmp_path):
    folder = _copy(tmp_path)
    source = CatalogSource(folder)
    good = source.catalog
    assert good is not None and source.error is None
    _edit(folder, "courses.csv", "CSC3100,Data Structures,数据结构,3,", "CSC3100,Data Structures,数据结构,x,")
    error = source.reload()
    assert error is not None and "courses.csv:15: credits" in str(error)
    assert source.catalog is good
    _edit(folder, "courses.csv", "CSC3100,Data Structures,数据结构,x,", "CSC3100,Data Structures,数据结构,4,")
    assert source.reload() is None and source.catalog.courses["CSC3100"].credits == 4


def test_no_catalog_folder_means_no_catalog(tmp_path):
    assert CatalogSource(tmp_path / "absent").catalog is None and CatalogSource(None).catalog is None


def test_the_bench_catalog_is_valid(tmp_path):
    codes = write_catalog(tmp_path / "big", courses=300, terms=3)
    big = load_catalog(tmp_path / "big")
    assert len(big.courses) == len(codes) and len(big.sections) == 3 * len(codes)


def test_rows_without_their_trailing_empty_cells_load(tmp_path):
    folder = _copy(tmp_path)
    _edit(folder, "programs.csv", "BSC-DS,BSc Data Science,数据科学理学学士,128", "BSC-DS,BSc Data Science")
    assert load_catalog(folder).programs["BSC-DS"].total_credits == 0


def test_a_row_with_too_many_cells_is_named(tmp_path):
    folder = _copy(tmp_path)
    _edit(folder, "terms.csv", "2027-06-30", "2027-06-30,extra")
    with pytest.raises(CatalogError, match="terms.csv:3: more cells than the header has"):
        load_catalog(folder)
