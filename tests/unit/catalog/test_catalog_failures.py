"""A catalog that fails its checks is said where it matters (issue 42, item 4): in the
Instructor tab with its first problems, and as a warning of every answer (`ask --json`
`warnings`), saying whether the last good catalog is still in use."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from courserag.catalog.load import CatalogSource
from courserag.engine.catalog_path import CatalogPath
from courserag.results import Answer
from courserag.ui.instructor import views
from courserag.ui.instructor.tab import InstructorTab

HARBOUR = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "catalog_harbour"
BAD_ROOM = ("sections.csv", "10:30,12:20,HB-204,i-chen", "10:30,12:20,HB-999,i-chen")
PROBLEM = "sections.csv:7: room: HB-999 is not in rooms.csv"


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "catalog_harbour"
    shutil.copytree(HARBOUR, folder)
    return folder


def _edit(folder: Path, name: str, old: str, new: str) -> None:
    path = folder / name
    path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")


def _source(tmp_path: Path, good_first: bool) -> CatalogSource:
    """A source whose folder now fails, after a good load (`good_first`) or from the start."""
    folder = _copy(tmp_path)
    source = CatalogSource(folder)
    if good_first:
        assert source.catalog is not None
    _edit(folder, *BAD_ROOM)
    source.refresh()
    return source


def _answer() -> Answer:
    return Answer("q", "a", False, [], mode="extractive")


@pytest.mark.parametrize(
    "good_first, code, words",
    [
        (True, "catalog_failed_kept", "the last catalog that passed is still in use"),
        (False, "catalog_failed_none", "answers do not use it until it passes"),
    ],
)
def test_every_answer_warns_of_a_failed_catalog(tmp_path, good_first, code, words):
    source = _source(tmp_path, good_first)
    path = CatalogPath(None, source, None)
    answer = path.noted(path.noted(_answer()))  # said once
    assert [n.code for n in answer.notices] == [code]
    (warning,) = answer.to_json()["warnings"]
    assert "failed its checks (1 problems; the first: " + PROBLEM in warning and words in warning


def test_a_good_catalog_adds_no_warning(tmp_path):
    source = CatalogSource(_copy(tmp_path))
    answer = CatalogPath(None, source, None).noted(_answer())
    assert source.catalog is not None and answer.notices == [] and answer.to_json()["warnings"] == []


@pytest.mark.parametrize(
    "good_first, lang, words",
    [
        (True, "en", "the last catalog that passed is still in use"),
        (False, "en", "no catalog is in use"),
        (True, "zh", "仍在使用上一次通过检查的课程目录"),
    ],
)
def test_the_instructor_tab_lists_the_problems_of_a_failed_catalog(tmp_path, good_first, lang, words):
    source = _source(tmp_path, good_first)
    said = views.catalog_markdown(str(source.folder), source.catalog, source.error, lang)
    assert words in said
    assert "- sections.csv:7: room: HB\\-999 is not in rooms.csv" in said.splitlines()


def test_the_instructor_tab_shows_the_first_problems_and_how_many_more(tmp_path):
    folder = _copy(tmp_path)
    (folder / "rooms.csv").write_text("room,building,capacity\n", encoding="utf-8")  # no room: 12 sections fail
    source = CatalogSource(folder)
    assert source.catalog is None and len(source.error.problems) > views.CATALOG_PROBLEMS_SHOWN
    lines = views.catalog_markdown(str(folder), None, source.error, "en").splitlines()
    assert sum(line.startswith("- ") for line in lines) == views.CATALOG_PROBLEMS_SHOWN
    more = len(source.error.problems) - views.CATALOG_PROBLEMS_SHOWN
    assert lines[-1].startswith(f"… and {more} more (`python rag_engine.py catalog check {folder}`")


def test_a_problem_from_a_file_shows_as_text_not_markdown(tmp_path):
    folder = _copy(tmp_path)
    _edit(folder, "sections.csv", "10:30,12:20,HB-204,i-chen", "10:30,12:20,**[x](http://e.x)**<b>,i-chen")
    source = CatalogSource(folder)
    assert source.catalog is None
    said = views.catalog_markdown(str(folder), None, source.error, "en")
    assert "\\*\\*\\[x\\]\\(http://e.x\\)\\*\\*&lt;b&gt; is not in rooms.csv" in said and "<b>" not in said


def test_the_instructor_tab_says_what_a_good_catalog_holds(tmp_path):
    source = CatalogSource(_copy(tmp_path))
    said = views.catalog_markdown(str(source.folder), source.catalog, source.error, "en")
    assert said.endswith("✓ 12 courses, 12 sections, 2 programs")


def test_the_instructor_tab_reads_an_edited_catalog_again_and_keeps_the_good_one(tmp_path):
    folder = _copy(tmp_path)
    source = CatalogSource(folder)
    good = source.catalog
    tab = SimpleNamespace(engine=SimpleNamespace(catalog=source))
    assert "✓ 12 courses" in InstructorTab._catalog_state(tab, "en")
    _edit(folder, *BAD_ROOM)
    said = InstructorTab._catalog_state(tab, "en")
    assert "the last catalog that passed is still in use" in said and "HB\\-999" in said
    assert source.catalog is good
    _edit(folder, "sections.csv", "HB-999", "HB-110")
    assert "✓ 12 courses" in InstructorTab._catalog_state(tab, "en") and source.catalog is not good


def test_no_catalog_configured_says_nothing_in_the_instructor_tab():
    tab = SimpleNamespace(engine=SimpleNamespace(catalog=CatalogSource(None)))
    assert InstructorTab._catalog_state(tab, "en") == ""
