"""What a catalog or a question may cost (courserag/catalog/; issue 40's catalog findings).

- Finding 4: brackets nested hundreds deep, or a prerequisite chain thousands of courses
  long, raised RecursionError (not a CatalogError) while loading, and stopped the app. A
  cell nested too deep is now a problem of its row and field; a long chain is a valid
  catalog; and no failure of loading escapes `CatalogSource`.
- Finding 7: the typing-slip check compared every code-like token of a question with every
  code of the catalog (494,000 comparisons for 2,000 characters over 2,000 courses). It now
  looks slips up in an index and checks the first `MAX_SLIP_TOKENS` tokens only; what it
  finds for ordinary slips is unchanged.

Work is counted, never timed.
"""

from __future__ import annotations

import csv
import shutil
from datetime import date
from pathlib import Path

import pytest

from bench.catalog import write_catalog
from courserag.catalog import codes as codes_module
from courserag.catalog import load as load_module
from courserag.catalog.answers import answer_question
from courserag.catalog.codes import MAX_SLIP_TOKENS, mentions, one_slip, resolve_code
from courserag.catalog.load import FILES, CatalogError, CatalogSource, load_catalog
from courserag.catalog.model import Need
from courserag.catalog.prereq import MAX_DEPTH, PrereqSyntaxError, codes_of, parse_prereq, say

SAMPLE = Path(__file__).resolve().parents[3] / "catalog"
CHAIN = 3000
TODAY = date(2026, 12, 1)


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "catalog"
    shutil.copytree(SAMPLE, folder)
    return folder


def _course_row(code: str, title: str, prerequisites: str = "") -> list[str]:
    row = dict.fromkeys(FILES["courses.csv"], "")
    row.update(code=code, title_en=title, credits="3", prerequisites=prerequisites)
    return list(row.values())


def _add_courses(folder: Path, rows: list[list[str]]) -> None:
    with (folder / "courses.csv").open("a", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)


def nested_catalog(folder: Path, depth: int = 400) -> int:
    """The sample catalog with one more course whose prerequisites nest `depth` brackets
    deep; returns that course's row."""
    _add_courses(folder, [_course_row("ZZN1000", "Nested", "(" * depth + "CSC1001" + ")" * depth)])
    return len((folder / "courses.csv").read_text(encoding="utf-8").splitlines())  # the last line


def chain_catalog(folder: Path, length: int = CHAIN, closed: bool = False) -> list[str]:
    """The sample catalog with a chain of `length` courses, course i needing course i-1,
    listed last first (so a walk from the first row goes the whole chain deep); `closed`
    makes the first need the last (a cycle). Returns the chain's codes in order."""
    chain = [f"ZZC{10000 + i}" for i in range(length)]
    rows = [
        _course_row(code, f"Chain {i}", chain[i - 1] if i else (chain[-1] if closed else ""))
        for i, code in enumerate(chain)
    ]
    _add_courses(folder, rows[::-1])
    return chain


# -- finding 4: nesting and chains -----------------------------------------------------------------


def test_brackets_nested_too_deep_are_a_problem_of_their_row_and_field(tmp_path):
    """Before: RecursionError out of load_catalog (app.py stopped with a traceback)."""
    folder = _copy(tmp_path)
    row = nested_catalog(folder)
    with pytest.raises(CatalogError) as caught:
        load_catalog(folder)
    assert f"courses.csv:{row}: prerequisites: nested too deep" in str(caught.value), caught.value.problems


def test_nesting_up_to_the_limit_reads_and_one_more_is_refused():
    deepest = "(" * MAX_DEPTH + "CSC1001 or MAT1001" + ")" * MAX_DEPTH
    expr = parse_prereq(deepest)
    assert codes_of(expr) == ("CSC1001", "MAT1001") and say(expr, "en") == "either CSC1001 or MAT1001"
    assert parse_prereq("((CSC1001) and (MAT1001))") == parse_prereq("CSC1001 and MAT1001")
    with pytest.raises(PrereqSyntaxError, match="nested too deep"):
        parse_prereq("(" * (MAX_DEPTH + 1) + "CSC1001" + ")" * (MAX_DEPTH + 1))
    with pytest.raises(PrereqSyntaxError, match="nested too deep"):  # unclosed ones too, before they run out
        parse_prereq("(" * 5000 + "CSC1001")


def test_a_long_flat_cell_names_each_code_once():
    cell = " or ".join(f"CSC{1000 + i % 50}" for i in range(5000))
    assert codes_of(parse_prereq(cell)) == tuple(f"CSC{1000 + i}" for i in range(50))
    assert codes_of(Need("CSC1001")) == ("CSC1001",) and codes_of(None) == ()


def test_a_3000_course_chain_is_a_valid_catalog(tmp_path, read_intents):
    """Before: RecursionError in the cycle check."""
    folder = _copy(tmp_path)
    chain = chain_catalog(folder)
    catalog = load_catalog(folder)
    assert all(catalog.course(code) is not None for code in chain)
    assert catalog.needed_by[chain[0]] == (chain[1],) and chain[-1] not in catalog.needed_by
    reply = answer_question(f"What are the prerequisites of {chain[-1]}?", catalog, TODAY, None, read_intents)
    assert not reply.refused and chain[-2] in reply.text
    assert CatalogSource(folder).catalog is not None


def test_a_3000_course_cycle_is_one_short_problem(tmp_path):
    folder = _copy(tmp_path)
    chain = chain_catalog(folder, closed=True)
    with pytest.raises(CatalogError) as caught:
        load_catalog(folder)
    (cycle,) = [p for p in caught.value.lines if "a cycle" in p]
    assert "prerequisites: a cycle" in cycle and f"({CHAIN + 1 - 12} more)" in cycle and len(cycle) < 300
    assert cycle.split("a cycle ")[1].startswith(chain[-1])


def test_a_self_cycle_and_a_short_cycle_are_said_whole(tmp_path):
    folder = _copy(tmp_path)
    _add_courses(folder, [_course_row("ZZS1000", "Self", "ZZS1000"), _course_row("ZZA1000", "A", "ZZB1000")])
    _add_courses(folder, [_course_row("ZZB1000", "B", "ZZA1000")])
    with pytest.raises(CatalogError) as caught:
        load_catalog(folder)
    cycles = [p.split(": prerequisites: ")[1] for p in caught.value.lines if "a cycle" in p]
    assert cycles == ["a cycle ZZS1000 -> ZZS1000", "a cycle ZZA1000 -> ZZB1000 -> ZZA1000"]


def test_no_failure_of_loading_escapes_the_catalog_source(tmp_path, monkeypatch, caplog):
    """Whatever goes wrong while loading, the catalog is refused with the reason and the
    app goes on without it (a RecursionError once stopped app.py)."""
    folder = _copy(tmp_path)

    def broken(_folder):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(load_module, "load_catalog", broken)
    source = CatalogSource(folder)
    with caplog.at_level("ERROR"):
        assert source.catalog is None
    assert isinstance(source.error, CatalogError) and "RecursionError" in str(source.error)
    assert "was not loaded" in caplog.text
    assert isinstance(source.reload(), CatalogError) and source.catalog is None


def test_a_broken_catalog_with_deep_nesting_keeps_the_good_one(tmp_path):
    folder = _copy(tmp_path)
    source = CatalogSource(folder)
    good = source.catalog
    nested_catalog(folder)
    error = source.reload()
    assert isinstance(error, CatalogError) and "nested too deep" in str(error)
    assert source.catalog is good


# -- finding 7: the typing-slip check --------------------------------------------------------------


@pytest.fixture(scope="module")
def sample():
    return load_catalog(SAMPLE)


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    folder = tmp_path_factory.mktemp("big-catalog")
    write_catalog(folder, courses=2000, terms=1)
    return load_catalog(folder)


def reference(typed: str, catalog) -> tuple[str, str | None]:
    """The check as it was: every catalog code compared with the typed one."""
    resolved = resolve_code(typed, catalog)
    if resolved.how != "typo" and resolved.how != "unknown":
        return resolved.how, resolved.course.code
    code = resolved.typed
    if code in catalog.aliases or codes_module._could_be_real(code, catalog):
        return "unknown", None
    near = {catalog.aliases[k] for k in catalog.aliases if one_slip(code, k)}
    return ("typo", near.pop()) if len(near) == 1 else ("unknown", None)


@pytest.mark.parametrize(
    "typed, how, code",
    [
        ("CSV3100", "typo", "CSC3100"),  # a changed letter
        ("XSC3100", "typo", "CSC3100"),
        ("CS3100", "typo", "CSC3100"),  # a dropped letter
        ("CSC31000", "typo", "CSC3100"),  # an added digit
        ("CSC3100X", "typo", "CSC3100"),  # an added letter (as typed; in a question it is no token)
        ("SCC3100", "typo", "CSC3100"),  # two swapped
        ("CCS3100", "typo", "CSC3100"),
        ("MTA2040", "typo", "MAT2040"),
        ("MAT204", "typo", "MAT2040"),
        ("MAT20400", "typo", "MAT2040"),
        ("DS201", "typo", "DS2010"),
        ("DS20100", "typo", "DS2010"),
        ("SD2010", "typo", "DS2010"),
        ("DS2O10", "typo", "DS2010"),  # a letter O for a zero
        ("STA200", "typo", "STA2001"),
        ("CSX3020", "typo", "DS3020"),  # one slip from a cross-listed code: its course
        ("CSC310", "unknown", None),  # one slip from several codes
        ("CSC 310", "unknown", None),
        ("CSC3010", "unknown", None),  # well formed: never corrected
        ("CSC3170", "unknown", None),
        ("PHY9999", "unknown", None),
        ("STA2001", "code", "STA2001"),
        ("CSC3020", "alias", "DS3020"),
    ],
)
def test_slips_are_read_as_before(sample, typed, how, code):
    resolved = resolve_code(typed, sample)
    assert (resolved.how, resolved.course.code if resolved.course else None) == (how, code)
    assert (resolved.how, resolved.course.code if resolved.course else None) == reference(typed, sample)


def _slips(code: str, alphabet: str) -> set[str]:
    """Every code one slip from `code` over `alphabet` (changed, dropped, added, swapped)."""
    out = {code[:i] + code[i + 1 :] for i in range(len(code))}
    out |= {code[:i] + ch + code[i + 1 :] for i in range(len(code)) for ch in alphabet}
    out |= {code[:i] + ch + code[i:] for i in range(len(code) + 1) for ch in alphabet}
    out |= {code[:i] + code[i + 1] + code[i] + code[i + 2 :] for i in range(len(code) - 1)}
    return out - {code}


@pytest.mark.parametrize("which", ["sample", "big"])
def test_every_slip_of_a_code_is_read_as_comparing_with_every_code_would(which, sample, big):
    """Every slip over a small alphabet of a few codes, resolved through the index, as the
    comparison with every catalog code resolves it."""
    catalog = sample if which == "sample" else big
    picked = sorted(catalog.aliases)[:: max(1, len(catalog.aliases) // (12 if which == "sample" else 3))]
    typed = sorted({slip for code in picked for slip in _slips(code, "CSDTAX019")})
    assert len(typed) > 100
    for text in typed:
        resolved = resolve_code(text, catalog)
        assert (resolved.how, resolved.course.code if resolved.course else None) == reference(text, catalog), text


def test_a_long_question_of_unknown_codes_costs_a_bounded_number_of_comparisons(big, monkeypatch, read_intents):
    """Before: 494,000 comparisons (0.6-1.1 s of CPU) for this question."""
    compared, looked_up = [], []
    real_slip, real_candidates = codes_module.one_slip, codes_module.slip_candidates
    monkeypatch.setattr(codes_module, "one_slip", lambda a, b: compared.append(b) or real_slip(a, b))
    monkeypatch.setattr(
        codes_module, "slip_candidates", lambda code, c: looked_up.append(code) or real_candidates(code, c)
    )
    # Codes of no scheme of the catalog ("CSX…") and of a digit count it lacks ("CSC100"):
    # each needs the slip check, and "CSC100" shares a key with dozens of real codes.
    question, i = "How many credits is ", 0
    while len(question) < 1990:
        question += f"CSX{1000 + i} CSC{100 + i % 10} "
        i += 1
    question = question[:2000]
    tokens = [code for code, _ in codes_module.codes_in(question)]
    assert len(tokens) > 250
    assert answer_question(question, big, TODAY, None, read_intents) is not None
    assert len(looked_up) == MAX_SLIP_TOKENS == len(set(looked_up))
    assert len(compared) <= MAX_SLIP_TOKENS * 20, len(compared)  # was every token x 2,000 codes (494,000)


def test_slips_past_the_bound_are_unknown_and_cost_nothing(sample, monkeypatch):
    typed = ["CSV3100"] * MAX_SLIP_TOKENS + ["MTA2040"]
    found = mentions(" ".join(typed) + " CSC3100", sample)
    assert [r.how for r, _ in found] == ["typo"] * MAX_SLIP_TOKENS + ["unknown", "code"]
    assert [r.course.code for r, _ in found if r.course] == ["CSC3100"] * (MAX_SLIP_TOKENS + 1)
