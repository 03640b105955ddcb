"""Titles and unknown codes from any workspace, linked to a catalog course or not (issue 42,
item 3), through the real engine: a title names its catalog course; an unknown code is "not
in the catalog" (naming the catalog's codes near it), never the materials' "nothing about X"
and never a neighbour's facts; the workspace's own course stays its materials'."""

from __future__ import annotations

from dataclasses import replace as change
from pathlib import Path

import pytest

from courserag.config.settings import Settings
from courserag.courses.directory import CourseDirectory, load_course_directory
from courserag.engine.catalog_path import CatalogPath
from courserag.engine.facade import RagEngine
from courserag.engine.requests import Question
from courserag.stores import LocalCourseStore
from tests.conftest import FakeEmbedder

ROOT = Path(__file__).resolve().parents[3]
HARBOUR = ROOT / "tests" / "fixtures" / "catalog_harbour"

# Workspaces besides the two samples (csc3100 and ds2010, linked to the sample catalog):
EXTRA = {
    "stat101": "STAT101 Statistics",  # a course the sample catalog does not list
    "os101": "OS101 Operating Systems",  # not listed either, but named like CSC3150
    "econ3301": "ECON3301 Econometrics",  # the harbour catalog's course, found by its code (no link)
}


def _engine(folder: Path, catalog: Path | None) -> RagEngine:
    settings = Settings(data_dir=folder, catalog_today="2026-12-01", **({"catalog": catalog} if catalog else {}))
    engine = RagEngine(
        settings,
        load_course_directory(settings.course_directory),
        LocalCourseStore(folder / "index", 8),
        FakeEmbedder(),
    )
    base = engine.course("csc3100")
    extra = [change(base, id=course_id, name=name) for course_id, name in EXTRA.items()]
    engine.directory = CourseDirectory((*engine.directory.courses, *extra))
    return engine


@pytest.fixture(scope="module")
def engines(tmp_path_factory):
    """The engine over the sample catalog and over the harbour fixture (csc3100 and ds2010
    are workspaces the harbour catalog does not cover)."""
    return {
        "sample": _engine(tmp_path_factory.mktemp("sample"), None),
        "harbour": _engine(tmp_path_factory.mktemp("harbour"), HARBOUR),
    }


def _reply(engine: RagEngine, course_id: str, text: str):
    """What the catalog path says (None: the materials answer)."""
    return CatalogPath(engine.parts, engine.catalog, None).reply(Question(course_id, text, scope="both", history=[]))


@pytest.mark.parametrize(
    "catalog, workspace, question, says",
    [
        # linked workspace, the title as printed and loosely typed (singular, "&", case)
        ("sample", "csc3100", "What are the prerequisites of Operating Systems?", "Prerequisites of CSC3150"),
        ("sample", "csc3100", "What are the prerequisites of operating system?", "Prerequisites of CSC3150"),
        ("sample", "ds2010", "How many credits is data structure?", "CSC3100 Data Structures is worth 3"),
        ("sample", "csc3100", "How many credits is Human Computer Interactions?", "CSC4200"),
        # a workspace the catalog does not cover
        ("sample", "stat101", "What are the prerequisites of Operating Systems?", "Prerequisites of CSC3150"),
        ("sample", "stat101", "操作系统的先修课是什么？", "CSC3150 操作系统"),
        ("sample", "stat101", "How many credits is design & analysis of algorithms?", "CSC4120"),
        ("harbour", "csc3100", "How many credits is Econometrics?", "ECON3301 Econometrics is worth 4 credits"),
        ("harbour", "ds2010", "计量经济学的先修课是什么？", "ECON3301 计量经济学"),
        # a workspace found by its code, its catalog row without a `workspace` link
        ("harbour", "econ3301", "行为经济学的先修课是什么？", "ECON3410 行为经济学"),
    ],
)
def test_a_title_names_its_catalog_course_from_any_workspace(engines, catalog, workspace, question, says):
    answer = engines[catalog].ask(workspace, question)
    assert answer.mode == "catalog" and not answer.refused, answer.answer
    assert says in answer.answer and answer.citations


@pytest.mark.parametrize(
    "workspace, question",
    [
        ("os101", "What are the prerequisites for Operating Systems?"),
        ("os101", "操作系统的先修课是什么？"),  # the workspace's name names CSC3150 too, in English
    ],
)
def test_a_title_the_workspaces_own_name_shares_is_left_to_its_materials(engines, workspace, question):
    assert _reply(engines["sample"], workspace, question) is None


@pytest.mark.parametrize(
    "catalog, workspace, question, text",
    [
        # well formed, near several catalog codes: named, none taken
        (
            "sample",
            "csc3100",
            "What are the prerequisites of CSC3170?",
            "CSC3170 is not in the catalog. Did you mean CSC3100, CSC3150 or CSC3180?",
        ),
        (
            "sample",
            "stat101",
            "How many credits is CSC3170?",
            "CSC3170 is not in the catalog. Did you mean CSC3100, CSC3150 or CSC3180?",
        ),
        (
            "sample",
            "ds2010",
            "DS2020 有几个学分？",
            "课程目录中没有 DS2020。您指的是 DS2010、DS2030、DS3020 或 DS4020 吗？",
        ),
        (
            "sample",
            "stat101",
            "DS2020 有几个学分？",
            "课程目录中没有 DS2020。您指的是 DS2010、DS2030、DS3020 或 DS4020 吗？",
        ),
        # malformed for the scheme but one slip from several codes: ambiguous, never taken
        (
            "sample",
            "csc3100",
            "How many credits is CSC310?",
            "CSC310 is not in the catalog. Did you mean CSC3100, CSC3150 or CSC3180?",
        ),
        # the same number under another prefix of the catalog
        (
            "sample",
            "csc3100",
            "How many credits is ECE3050?",
            "ECE3050 is not in the catalog. Did you mean CSC3050 or DS3050?",
        ),
        # two unknown codes: a sentence each, each with its own near codes
        (
            "sample",
            "ds2010",
            "How many credits are CSC3170 and XYZ9999?",
            "CSC3170 is not in the catalog. Did you mean CSC3100, CSC3150 or CSC3180? XYZ9999 is not in the catalog.",
        ),
        # nothing near
        ("sample", "stat101", "Is XYZ9999 offered this term?", "XYZ9999 is not in the catalog."),
        # the harbour catalog from a workspace it does not cover; a former code is its course's
        (
            "harbour",
            "csc3100",
            "How many credits is ECON3302?",
            "ECON3302 is not in the catalog. Did you mean ECON3301?",
        ),
        (
            "harbour",
            "econ3301",
            "What are the prerequisites of ECON3302?",
            "ECON3302 is not in the catalog. Did you mean ECON3301?",
        ),
    ],
)
def test_an_unknown_code_is_not_in_the_catalog_from_any_workspace(engines, catalog, workspace, question, text):
    answer = engines[catalog].ask(workspace, question)
    assert answer.mode == "catalog" and answer.refused
    assert answer.answer == text and answer.citations == []  # no neighbour's facts


@pytest.mark.parametrize(
    "question, says",
    [
        ("What are the prerequisites of CSV3150?", "(Read CSV3150 as CSC3150 Operating Systems.)"),
        ("What are the prerequisites of CS3150?", "(Read CS3150 as CSC3150 Operating Systems.)"),
    ],
)
def test_a_slip_that_cannot_be_a_code_and_has_one_neighbour_is_read_as_it(engines, question, says):
    answer = engines["sample"].ask("stat101", question)
    assert answer.mode == "catalog" and not answer.refused and says in answer.answer


@pytest.mark.parametrize(
    "catalog, workspace, question",
    [
        ("sample", "stat101", "What are the prerequisites for STAT101?"),
        ("harbour", "csc3100", "How many credits is CSC3100?"),
    ],
)
def test_the_workspaces_own_code_is_left_to_its_materials(engines, catalog, workspace, question):
    assert _reply(engines[catalog], workspace, question) is None
    assert engines[catalog].ask(workspace, question).mode != "catalog"


@pytest.mark.parametrize("workspace", ["csc3100", "stat101"])
def test_a_word_and_a_number_is_not_an_unknown_code(engines, workspace):
    reply = _reply(engines["sample"], workspace, "Which sections run in year 2026?")
    assert reply is None or not reply.refused
