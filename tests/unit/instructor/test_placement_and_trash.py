"""The pure parts of safe instructor file actions (courserag/instructor/placement.py,
trash.py): free names for "keep both", folder choices checked on the server, a trash that
keeps entries for TRASH_DAYS and then purges them."""

from __future__ import annotations

import pytest

from courserag.errors import CourseRagError
from courserag.instructor.placement import checked_folder, free_name, subfolders
from courserag.instructor.trash import DAY_S, CourseTrash


@pytest.mark.parametrize(
    ("name", "taken", "expected"),
    [
        ("notes.pdf", [], "notes.pdf"),
        ("notes.pdf", ["notes.pdf"], "notes (2).pdf"),
        ("notes.pdf", ["NOTES.pdf"], "notes (2).pdf"),  # case-insensitive file systems clash too
        ("notes.pdf", ["notes.pdf", "notes (2).pdf"], "notes (3).pdf"),
        ("notes (2).pdf", ["notes.pdf", "notes (2).pdf"], "notes (3).pdf"),  # not "notes (2) (2).pdf"
        ("README", ["README"], "README (2)"),
        ("第一周.md", ["第一周.md"], "第一周 (2).md"),
        ("a.tar.gz", ["a.tar.gz"], "a.tar (2).gz"),
    ],
)
def test_keep_both_picks_a_free_name(name, taken, expected):
    assert free_name(name, taken) == expected


@pytest.fixture
def docs(tmp_path):
    root = tmp_path / "course"
    for folder in ("week1", "week1/lab", "slides", ".hidden"):
        (root / folder).mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (root / "escape").symlink_to(tmp_path / "elsewhere")
    return root


def test_subfolders_are_the_visible_ones_inside_the_course(docs):
    assert subfolders(docs) == ["slides", "week1", "week1/lab"]


@pytest.mark.parametrize("folder", ["", ".", None, "week1", "week1/lab"])
def test_an_existing_folder_is_accepted(docs, folder):
    assert checked_folder(docs, folder).resolve().is_relative_to(docs.resolve())


@pytest.mark.parametrize(
    "folder", ["..", "../elsewhere", "week1/../..", "/etc", ".hidden", "escape", "new-folder", "week1\\..\\.."]
)
def test_any_other_folder_is_refused_by_name(docs, folder):
    with pytest.raises(CourseRagError) as caught:
        checked_folder(docs, folder)
    assert caught.value.code == "course_folder_not_allowed" and folder in caught.value.say("en")
    assert caught.value.say("zh") != caught.value.say("en")


class Clock:
    def __init__(self):
        self.now = 1_800_000_000.0

    def __call__(self):
        return self.now


def test_the_trash_keeps_entries_for_its_days_then_purges_them(tmp_path):
    clock = Clock()
    trash = CourseTrash(tmp_path / "data", keep_days=2, clock=clock)
    first = tmp_path / "a.md"
    first.write_text("one", encoding="utf-8")
    old = trash.put("c1", first, "week1/a.md")
    clock.now += DAY_S
    second = tmp_path / "b.md"
    second.write_text("two", encoding="utf-8")
    new = trash.put("c1", second, "b.md", reason="replaced")
    assert not first.exists() and not second.exists()
    assert [(e.source, e.reason) for e in trash.entries("c1")] == [("b.md", "replaced"), ("week1/a.md", "removed")]
    assert trash.entries("other") == []
    clock.now += DAY_S  # the first entry's two days are over
    assert [e.id for e in trash.entries("c1")] == [new.id]
    assert not (trash.root / "c1" / old.id).exists() and not (trash.root / "c1" / f"{old.id}.json").exists()
    target = tmp_path / "back" / "b.md"
    trash.take("c1", new.id, target)
    assert target.read_text(encoding="utf-8") == "two" and trash.entries("c1") == []


@pytest.mark.parametrize("entry_id", ["", None, "../../etc/passwd", "0" * 32, "not-an-id"])
def test_an_unknown_trash_entry_is_refused(tmp_path, entry_id):
    trash = CourseTrash(tmp_path / "data")
    with pytest.raises(CourseRagError) as caught:
        trash.take("c1", entry_id, tmp_path / "x.md")
    assert caught.value.code == "course_trash_missing"


@pytest.mark.parametrize(
    ("lang", "reason", "label"),
    [
        ("en", "removed", "week1/a.md — removed 2027-01-15 08:00 UTC, kept until 2027-02-14"),
        ("en", "replaced", "week1/a.md — replaced 2027-01-15 08:00 UTC, kept until 2027-02-14"),
        ("zh", "removed", "week1/a.md — 2027-01-15 08:00 UTC 已删除，保留至 2027-02-14"),
        ("zh", "replaced", "week1/a.md — 2027-01-15 08:00 UTC 已替换，保留至 2027-02-14"),
    ],
)
def test_the_trash_picker_says_what_each_entry_is_and_until_when(lang, reason, label):
    from courserag.instructor.trash import TrashEntry
    from courserag.ui.instructor.views import folder_choices, trash_choices

    removed = 1_800_000_000.0  # 2027-01-15 08:00 UTC
    entry = TrashEntry("a" * 32, "week1/a.md", reason, removed, removed + 30 * DAY_S)
    assert trash_choices([entry], lang) == [(label, "a" * 32)]
    assert folder_choices(["week1"], lang)[1:] == [("week1", "week1")]
    assert folder_choices([], lang)[0][1] == "." and folder_choices([], "zh")[0][0] != folder_choices([], "en")[0][0]
