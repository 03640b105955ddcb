"""Instructor file actions that cannot lose work, over a real engine (fake embedder, local
store, private copies of the course folders): a taken name asks first, then replaces (the old
version to the trash) or keeps both; uploads land in an existing subfolder only; removal
goes to a trash the tab restores from; "most-cited files" drops a removed file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from courserag.errors import CourseRagError

PROJECT_ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def tools(tmp_path, fake_embedder):
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


def upload(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / "upload" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def docs(tmp_path: Path) -> Path:
    return tmp_path / "courses" / "csc3100"


def indexed(tools) -> set[str]:
    return {r.source for r in tools.engine.course_files("csc3100")}


def test_a_taken_name_is_not_stored_until_the_instructor_says_how(tools, tmp_path):
    original = (docs(tmp_path) / "syllabus.md").read_text(encoding="utf-8")
    new = upload(tmp_path, "syllabus.md", "# New syllabus\n\nThe final is on Friday.\n")
    assert tools.clashes("csc3100", ["syllabus.md", "other.md"]) == ["syllabus.md"]
    summary, notices = tools.add_files("csc3100", [(new, "syllabus.md")])
    assert summary is None and [n.code for n in notices] == ["course_file_exists"]
    assert (docs(tmp_path) / "syllabus.md").read_text(encoding="utf-8") == original


def test_keep_both_adds_the_new_file_under_a_free_name(tools, tmp_path):
    original = (docs(tmp_path) / "syllabus.md").read_text(encoding="utf-8")
    new = upload(tmp_path, "syllabus.md", "# New syllabus\n\nThe final is on Friday.\n")
    summary, notices = tools.add_files("csc3100", [(new, "syllabus.md")], on_clash="keep")
    assert summary.indexed == 1 and notices[0].text("en") == "✓ syllabus (2).md was added to the course"
    assert (docs(tmp_path) / "syllabus.md").read_text(encoding="utf-8") == original
    assert "Friday" in (docs(tmp_path) / "syllabus (2).md").read_text(encoding="utf-8")
    assert {"syllabus.md", "syllabus (2).md"} <= indexed(tools)


def test_replace_keeps_the_old_version_in_the_trash_and_restore_brings_it_back(tools, tmp_path):
    original = (docs(tmp_path) / "syllabus.md").read_text(encoding="utf-8")
    new = upload(tmp_path, "syllabus.md", "# New syllabus\n\nThe final is on Friday.\n")
    _, notices = tools.add_files("csc3100", [(new, "syllabus.md")], on_clash="replace")
    assert notices[0].code == "course_file_replaced"
    assert "Friday" in (docs(tmp_path) / "syllabus.md").read_text(encoding="utf-8")
    (entry,) = tools.trashed("csc3100")
    assert (entry.source, entry.reason) == ("syllabus.md", "replaced")
    restored, summary = tools.restore_file("csc3100", entry.id)
    assert restored == "syllabus (2).md" and summary is not None  # the name is taken now: nothing overwritten
    assert (docs(tmp_path) / "syllabus (2).md").read_text(encoding="utf-8") == original
    assert tools.trashed("csc3100") == [] and "syllabus (2).md" in indexed(tools)
    assert not [p for p in docs(tmp_path).rglob(".*") if p.is_file()]  # no temporary file left behind


def test_uploads_land_in_an_existing_subfolder_and_nowhere_else(tools, tmp_path):
    assert "lectures" in tools.folders("csc3100") and "homework" in tools.folders("csc3100")
    new = upload(tmp_path, "week09_tries.md", "# Tries\n\nA trie stores words letter by letter.\n")
    summary, _ = tools.add_files("csc3100", [(new, new.name)], folder="lectures")
    assert summary.indexed == 1 and "lectures/week09_tries.md" in indexed(tools)
    before = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if "data" not in p.parts)
    for folder in ("..", "../ds2010", "../../", "/tmp", ".hidden", "lectures/../..", "no-such-folder"):
        with pytest.raises(CourseRagError) as caught:
            tools.add_files("csc3100", [(new, "../../escape.md")], folder=folder)
        assert caught.value.code == "course_folder_not_allowed" and folder in caught.value.say("en")
    after = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if "data" not in p.parts)
    assert after == before  # nothing written anywhere, nothing lost
    summary, notices = tools.add_files("csc3100", [(new, "../../escape.md")])
    assert notices[0].text("en") == "✓ escape.md was added to the course"  # a name is never a path


def test_removal_goes_to_the_trash_and_is_restored_where_it_was(tools, tmp_path):
    heap = docs(tmp_path) / "code" / "heap.py"
    text = heap.read_text(encoding="utf-8")
    summary = tools.remove_file("csc3100", "code/heap.py")
    assert summary.deleted == 1 and not heap.exists() and "code/heap.py" not in indexed(tools)
    (entry,) = tools.trashed("csc3100")
    held = list((tmp_path / "data" / "trash" / "csc3100").rglob("heap.py"))
    assert entry.source == "code/heap.py" and len(held) == 1 and held[0].read_text(encoding="utf-8") == text
    shutil.rmtree(docs(tmp_path) / "code")  # its folder is gone too: made again
    restored, summary = tools.restore_file("csc3100", entry.id)
    assert restored == "code/heap.py" and heap.read_text(encoding="utf-8") == text
    assert "code/heap.py" in indexed(tools) and tools.trashed("csc3100") == []
    with pytest.raises(CourseRagError) as caught:
        tools.restore_file("csc3100", entry.id)  # once only
    assert caught.value.code == "course_trash_missing"
    with pytest.raises(CourseRagError) as caught:
        tools.remove_file("csc3100", "../../course_directory.yaml")
    assert caught.value.code == "course_file_missing" and (tmp_path / "course_directory.yaml").exists()


def test_most_cited_files_drop_a_removed_file_and_get_it_back_when_restored(tools):
    citations = [{"n": 1, "source": "syllabus.md", "locator": "Grading", "origin": "course"}]
    tools.feedback.log_citations("csc3100", citations)
    tools.feedback.log_citations("csc3100", [dict(citations[0], source="code/heap.py")])
    assert {row[0] for row in tools.most_cited("csc3100")} == {"syllabus.md", "code/heap.py"}
    tools.remove_file("csc3100", "syllabus.md")
    assert [row[0] for row in tools.most_cited("csc3100")] == ["code/heap.py"]
    tools.restore_file("csc3100", tools.trashed("csc3100")[0].id)
    assert {row[0] for row in tools.most_cited("csc3100")} == {"syllabus.md", "code/heap.py"}


def test_trash_days_is_a_validated_setting():
    from courserag.config.settings import Settings
    from courserag.errors import ConfigError

    assert Settings.from_env({"TRASH_DAYS": "7"}).trash_days == 7.0
    with pytest.raises(ConfigError, match="TRASH_DAYS"):
        Settings.from_env({"TRASH_DAYS": "0"})
