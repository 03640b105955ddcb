"""The instructor workspace's logic (courserag/instructor/tools.py, courserag/courses/edit.py):
per-course tokens, course files added and removed, course details edited safely."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from courserag.courses.edit import CourseEdit, edited_text, update_course, validated
from courserag.errors import ConfigError, CourseRagError
from courserag.instructor.tools import check_token, course_tokens, token_courses

PROJECT_ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("raw", "tokens"),
    [
        ("csc3100=tok-a,ds2010=tok-b", {"csc3100": "tok-a", "ds2010": "tok-b"}),
        ("csc3100: tok-a ; ds2010=tok-b\n", {"csc3100": "tok-a", "ds2010": "tok-b"}),
        ('{"csc3100": "tok-a"}', {"csc3100": "tok-a"}),
        ("not a pair, ds2010=tok-b", {"ds2010": "tok-b"}),
        ("{broken json", {}),
        ("", {}),
    ],
)
def test_per_course_tokens_are_read_from_instructor_tokens(monkeypatch, raw, tokens):
    monkeypatch.setenv("INSTRUCTOR_TOKENS", raw)
    assert course_tokens() == tokens


def test_a_course_token_unlocks_its_course_only_and_the_global_token_all(monkeypatch):
    monkeypatch.setattr("courserag.instructor.tools.time.sleep", lambda s: None)
    assert check_token("anything", "csc3100") == "disabled"
    monkeypatch.setenv("INSTRUCTOR_TOKENS", "ds2010=tok-b")
    assert check_token("tok-b", "ds2010") == "ok"
    assert check_token("tok-b") == "wrong"  # no course named is "every course": the global token only (issue 20)
    assert check_token("tok-b", "csc3100") == "wrong" and check_token("", "ds2010") == "missing"
    assert token_courses("tok-b", ["csc3100", "ds2010"]) == ["ds2010"]
    monkeypatch.setenv("INSTRUCTOR_TOKEN", "global")
    assert check_token("global", "csc3100") == "ok" and check_token("global", "ds2010") == "ok"
    assert token_courses("global", ["csc3100", "ds2010"]) == ["csc3100", "ds2010"]
    assert token_courses("nope", ["csc3100", "ds2010"]) == []


def test_settings_enable_the_tab_for_either_variable():
    from courserag.config.settings import Settings

    assert Settings.from_env({"INSTRUCTOR_TOKENS": "ds2010=x"}).instructor_enabled
    assert Settings.from_env({"INSTRUCTOR_TOKEN": "x"}).instructor_enabled
    assert not Settings.from_env({}).instructor_enabled


@pytest.mark.parametrize(
    ("name", "description", "examples", "code"),
    [
        ("", "d", "", "course_name_empty"),
        ("n", "  ", "", "course_description_empty"),
        ("n" * 121, "d", "", "course_name_too_long"),
        ("n", "d", "a\nb\nc\nd\ne", "course_too_many_examples"),
        ("n", "d", "x" * 201, "course_example_too_long"),
    ],
)
def test_course_edits_are_validated(name, description, examples, code):
    with pytest.raises(CourseRagError) as caught:
        validated(name, description, examples)
    assert caught.value.code == code and caught.value.say("zh") != caught.value.say("en")


def test_an_edit_changes_one_course_keeps_the_rest_and_the_header(tmp_path):
    path = tmp_path / "course_directory.yaml"
    shutil.copy(PROJECT_ROOT / "course_directory.yaml", path)
    shutil.copytree(PROJECT_ROOT / "courses", tmp_path / "courses")
    before = yaml.safe_load(path.read_text(encoding="utf-8"))
    update_course(path, "ds2010", validated("DS2010 数据科学", "新的简介。", "问题一\n\n问题二 "))
    text = path.read_text(encoding="utf-8")
    after = yaml.safe_load(text)
    assert text.startswith("# Courses offered in the course picker.")
    assert after["courses"][0] == before["courses"][0]
    ds = after["courses"][1]
    assert (ds["name"], ds["description"], ds["examples"]) == ("DS2010 数据科学", "新的简介。", ["问题一", "问题二"])
    assert {k: v for k, v in ds.items() if k not in ("name", "description", "examples")} == {
        k: v for k, v in before["courses"][1].items() if k not in ("name", "description", "examples")
    }
    assert not list(tmp_path.glob(".course_directory.yaml.*"))  # no temporary file left behind
    with pytest.raises(ConfigError):
        edited_text(text, "nope", CourseEdit("n", "d"))


def test_a_failed_write_leaves_the_course_list_as_it_was(tmp_path, monkeypatch):
    path = tmp_path / "course_directory.yaml"
    shutil.copy(PROJECT_ROOT / "course_directory.yaml", path)
    original = path.read_text(encoding="utf-8")

    def refuse(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("courserag.courses.edit.os.replace", refuse)
    with pytest.raises(CourseRagError) as caught:
        update_course(path, "csc3100", CourseEdit("Renamed", "d"))
    assert caught.value.code == "course_list_unwritable"
    assert path.read_text(encoding="utf-8") == original and not list(tmp_path.glob(".course_directory.yaml.*"))


@pytest.fixture
def tools(tmp_path, fake_embedder):
    """InstructorTools over a private course list and folders (fake embedder, local store)."""
    from courserag.config.settings import Settings
    from courserag.courses.directory import load_course_directory
    from courserag.engine.facade import RagEngine
    from courserag.instructor.feedback import FeedbackLog
    from courserag.instructor.tools import InstructorTools
    from courserag.stores import LocalCourseStore

    shutil.copy(PROJECT_ROOT / "course_directory.yaml", tmp_path / "course_directory.yaml")
    shutil.copytree(PROJECT_ROOT / "courses", tmp_path / "courses")
    settings = Settings(data_dir=tmp_path / "data", course_directory=tmp_path / "course_directory.yaml")
    engine = RagEngine(
        settings,
        load_course_directory(settings.course_directory),
        LocalCourseStore(settings.data_dir / "index", fake_embedder.dim),
        fake_embedder,
    )
    engine.build_course("csc3100")
    return InstructorTools(engine, FeedbackLog(settings.data_dir), settings)


def test_files_are_added_indexed_replaced_and_removed(tools, tmp_path):
    new = tmp_path / "upload" / "week09_tries.md"
    new.parent.mkdir()
    new.write_text("# Tries\n\nA trie stores words letter by letter.\n", encoding="utf-8")
    seen = []
    summary, notices = tools.add_files("csc3100", [(new, new.name)], lambda done, total, name: seen.append(name))
    assert summary.indexed == 1 and [n.text("en") for n in notices] == ["✓ week09_tries.md was added to the course"]
    assert "week09_tries.md" in seen
    rows = {f.source: f for f in tools.files("csc3100")}
    assert rows["week09_tries.md"].indexed and rows["week09_tries.md"].chunks == 1

    broken = tmp_path / "upload" / "week09_tries.md"
    broken.write_bytes(b"\x00\x01\x02" * 100)  # a replacement that cannot be read
    summary, notices = tools.add_files("csc3100", [(broken, broken.name)])
    assert summary is None and notices[0].code == "ingest_failed" and "week09_tries.md" in notices[0].text("zh")
    course_copy = tmp_path / "courses" / "csc3100" / "week09_tries.md"
    assert course_copy.read_text(encoding="utf-8").startswith("# Tries")  # the old version stays

    exe = tmp_path / "upload" / "tool.exe"
    exe.write_bytes(b"MZ")
    _, notices = tools.add_files("csc3100", [(exe, exe.name)])
    assert ".exe" in notices[0].text("en") and not (tmp_path / "courses" / "csc3100" / "tool.exe").exists()

    summary = tools.remove_file("csc3100", "week09_tries.md")
    assert summary.deleted == 1 and not course_copy.exists()
    assert "week09_tries.md" not in {f.source for f in tools.files("csc3100")}
    with pytest.raises(CourseRagError) as caught:
        tools.remove_file("csc3100", "../../course_directory.yaml")
    assert caught.value.code == "course_file_missing"


def test_course_details_are_saved_and_the_engine_sees_them(tools):
    course = tools.edit_course("csc3100", "CSC3100 DSA", "Renamed course.", "Q1?\nQ2?")
    assert (course.name, course.description, course.examples) == ("CSC3100 DSA", "Renamed course.", ("Q1?", "Q2?"))
    assert tools.engine.course("csc3100").name == "CSC3100 DSA"
