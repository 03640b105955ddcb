"""An instructor's "Replace" killed halfway (`kill -9`, a Space restart) loses nothing: the
next start finishes or undoes it (issue 40, finding 8).

A real child process replaces `syllabus.md` and is stopped at the step under test (it says
"ready" and blocks there), then SIGKILLed; the app's own start (`engine/startup.prepare`)
then runs on the same course folder and DATA_DIR. Before the fix the old version stayed as a
hidden `.syllabus.md.<id>.previous`, not in the trash, while the files table said the new
file was indexed and answers still quoted the old one.
"""

from __future__ import annotations

import hashlib
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import FakeEmbedder

PROJECT_ROOT = Path(__file__).resolve().parents[2]
COURSE = "csc3100"
NEW_SYLLABUS = (
    "# CSC3100 Data Structures — Syllabus (revised)\n\n"
    "## Lectures\n\nFrom Week 5 the lectures move to the wombat hall, Room WMB-717, Mondays 14:00–15:20.\n"
)
QUESTION = "Where is the wombat hall for the lectures?"

# The child: the instructor tab's replace over its own engine, stopped at `stage`.
CHILD = r"""
import os, sys, threading
from pathlib import Path

from courserag.config.settings import Settings
from courserag.courses.directory import load_course_directory
from courserag.engine.facade import RagEngine
from courserag.instructor import course_files
from courserag.instructor.feedback import FeedbackLog
from courserag.instructor.tools import InstructorTools
from courserag.stores import LocalCourseStore
from tests.conftest import FakeEmbedder

stage, root = sys.argv[1], Path(sys.argv[2])
settings = Settings(data_dir=root / "data", course_directory=root / "course_directory.yaml")
embedder = FakeEmbedder()
engine = RagEngine(
    settings,
    load_course_directory(settings.course_directory),
    LocalCourseStore(settings.data_dir / "index", embedder.dim),
    embedder,
)
tools = InstructorTools(engine, FeedbackLog(settings.data_dir), settings)


def stop_here(*args, **kwargs):
    print("ready", flush=True)
    threading.Event().wait()  # until the test kills this process


class Os:
    # os for course_files, stopping before the new file takes the old one's name
    def __getattr__(self, name):
        return getattr(os, name)

    @staticmethod
    def replace(src, dst):
        if Path(dst).name == "syllabus.md":
            stop_here()
        return os.replace(src, dst)

    @staticmethod
    def link(src, dst, **kwargs):
        if stage == "renamed aside":
            raise OSError(1, "Operation not permitted")  # a disk without hard links
        return os.link(src, dst, **kwargs)


if stage == "indexing":
    engine.build_course = stop_here  # the new file is stored; its build has begun
else:
    course_files.os = Os()
tools.add_files("csc3100", [(root / "upload" / "syllabus.md", "syllabus.md")], on_clash="replace")
print("finished", flush=True)
"""


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_settings(root: Path):
    from courserag.config.settings import Settings

    return Settings(data_dir=root / "data", course_directory=root / "course_directory.yaml")


def make_engine(root: Path):
    """An engine as the app makes one, over `root`'s course folders and DATA_DIR (fake embedder)."""
    from courserag.courses.directory import load_course_directory
    from courserag.engine.facade import RagEngine
    from courserag.stores import LocalCourseStore

    settings = make_settings(root)
    embedder = FakeEmbedder()
    store = LocalCourseStore(settings.data_dir / "index", embedder.dim)
    return RagEngine(settings, load_course_directory(settings.course_directory), store, embedder), settings


@pytest.fixture
def root(tmp_path) -> Path:
    """Private copies of the course folders, csc3100 indexed, and the new syllabus to upload."""
    shutil.copy(PROJECT_ROOT / "course_directory.yaml", tmp_path / "course_directory.yaml")
    shutil.copytree(PROJECT_ROOT / "courses", tmp_path / "courses")
    engine, _ = make_engine(tmp_path)
    assert not engine.build_course(COURSE).failed
    (tmp_path / "upload").mkdir()
    (tmp_path / "upload" / "syllabus.md").write_text(NEW_SYLLABUS, encoding="utf-8")
    return tmp_path


def kill_replace_at(root: Path, stage: str, timeout_s: float = 120.0) -> None:
    """Run the replace in a child process, wait until it says it stands at `stage`, kill -9 it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, stage, str(root)],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(proc.stdout, selectors.EVENT_READ)
            if not selector.select(timeout_s):
                raise AssertionError(f"the replace did not reach '{stage}' within {timeout_s:.0f} s")
            line = proc.stdout.readline().strip()
        assert line == "ready", f"the replace never stopped at '{stage}': {line!r}\n{proc.stderr.read()[-3000:]}"
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()


def start_app(root: Path):
    """The app's start on `root` (what `app.py` runs before it serves): a fresh engine, then `prepare`."""
    from courserag.engine.startup import prepare
    from courserag.instructor.feedback import FeedbackLog
    from courserag.instructor.tools import InstructorTools

    engine, settings = make_engine(root)
    prepare(engine, settings)
    return InstructorTools(engine, FeedbackLog(settings.data_dir), settings)


def hidden_leftovers(docs: Path) -> list[str]:
    return sorted(p.name for p in docs.rglob(".*"))


def indexed_hash(tools, source: str) -> str:
    return {r.source: r.file_hash for r in tools.engine.course_files(COURSE)}[source]


def test_a_replace_killed_while_indexing_is_finished_at_start_old_version_in_the_trash_new_one_answered(root):
    docs = root / "courses" / COURSE
    original = (docs / "syllabus.md").read_bytes()
    kill_replace_at(root, "indexing")
    # What the kill left: the new file under the name, the old one hidden, the index stale.
    assert (docs / "syllabus.md").read_text(encoding="utf-8") == NEW_SYLLABUS
    (aside,) = [p for p in docs.glob(".syllabus.md.*.previous")]
    assert aside.read_bytes() == original

    started = time.monotonic()
    tools = start_app(root)
    assert hidden_leftovers(docs) == []  # nothing hidden left in the course folder
    (entry,) = tools.trashed(COURSE)
    assert (entry.source, entry.reason) == ("syllabus.md", "replaced")
    assert indexed_hash(tools, "syllabus.md") == sha256(docs / "syllabus.md")  # the new file is what is indexed
    retrieval = tools.engine.retrieve(COURSE, QUESTION)  # the sources an answer quotes
    quoted = [item.text for item in retrieval.items if item.hit.chunk.source == "syllabus.md"]
    assert any("WMB-717" in text for text in quoted), quoted
    assert all("SCI-201" not in text for text in quoted), quoted  # never the old syllabus
    print(f"\nstart with the unfinished replace settled: {time.monotonic() - started:.1f} s")

    # The old version is restorable, as after a replace that finished.
    restored, summary = tools.restore_file(COURSE, entry.id)
    assert restored == "syllabus (2).md" and summary is not None and not summary.failed
    assert (docs / "syllabus (2).md").read_bytes() == original
    assert indexed_hash(tools, "syllabus (2).md") == hashlib.sha256(original).hexdigest()
    assert tools.trashed(COURSE) == []


@pytest.mark.parametrize("stage", ["linked aside", "renamed aside"])
def test_a_replace_killed_before_the_new_file_took_the_name_leaves_the_old_file_in_place_at_start(root, stage):
    """'linked aside': the old version has a second, hidden link; 'renamed aside' (a disk
    without hard links): it was moved to the hidden name, so the course file was missing."""
    docs = root / "courses" / COURSE
    original = (docs / "syllabus.md").read_bytes()
    kill_replace_at(root, stage)
    assert [p.name for p in docs.glob(".syllabus.md.*.previous")] and [p.name for p in docs.glob(".syllabus.md.*.tmp")]
    assert (docs / "syllabus.md").exists() == (stage == "linked aside")  # a link keeps the name filled

    tools = start_app(root)
    assert (docs / "syllabus.md").read_bytes() == original  # the old file, as it was
    assert hidden_leftovers(docs) == [] and tools.trashed(COURSE) == []
    assert not (docs / "syllabus.md").is_symlink() and os.stat(docs / "syllabus.md").st_nlink == 1
    assert indexed_hash(tools, "syllabus.md") == sha256(docs / "syllabus.md")
    files = {row.source: row for row in tools.files(COURSE)}
    assert files["syllabus.md"].indexed and files["syllabus.md"].chunks > 0


def test_a_replace_that_cannot_store_the_new_file_leaves_the_old_one_in_place(root, monkeypatch):
    """An error (not a kill) between keeping the old version aside and storing the new one:
    the replace is undone at once, nothing hidden is left for the next start."""
    from courserag.instructor import course_files
    from courserag.instructor.feedback import FeedbackLog
    from courserag.instructor.tools import InstructorTools

    class Os:
        def __getattr__(self, name):
            return getattr(os, name)

        @staticmethod
        def replace(src, dst):
            if Path(dst).name == "syllabus.md":
                raise OSError(28, "No space left on device")
            return os.replace(src, dst)

    docs = root / "courses" / COURSE
    original = (docs / "syllabus.md").read_bytes()
    engine, settings = make_engine(root)
    tools = InstructorTools(engine, FeedbackLog(settings.data_dir), settings)
    monkeypatch.setattr(course_files, "os", Os())
    summary, notices = tools.add_files(COURSE, [(root / "upload" / "syllabus.md", "syllabus.md")], on_clash="replace")
    assert summary is None and [n.code for n in notices] == ["course_file_unwritable"]
    assert (docs / "syllabus.md").read_bytes() == original and os.stat(docs / "syllabus.md").st_nlink == 1
    assert hidden_leftovers(docs) == [] and tools.trashed(COURSE) == []
