"""Limits and repairs seen from the engine and the instructor tab (issue 14's smaller findings,
and M7/M8):

- instructor tokens: counted per client, no sleep in a worker;
- feedback logs: bounded and rotated, read from their tail, safe after a torn line;
- no absolute server path in what a learner sees;
- links out of a course folder are refused by the build;
- M7: a damaged index segment is skipped with a warning, shown in the instructor's stats,
  and repaired by the next build; M8: a rebuild killed halfway leaves the old index whole;
- a course never indexed says so, and how to index it, instead of refusing in silence.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from courserag.config.settings import Settings
from courserag.courses.directory import Course
from courserag.courses.indexer import build_course, course_files, linked_outside
from courserag.instructor.feedback import FeedbackLog
from courserag.instructor.tools import TokenThrottle, check_token
from courserag.stores.local import LocalCourseStore

TOKEN = "instructor-token-" + "k" * 24


# -- instructor tokens -----------------------------------------------------------------------------


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_wrong_tokens_are_counted_per_client_without_sleeping(monkeypatch):
    """Before: each wrong token slept 0.5 s in a worker (40 queued: the real unlock waited 11 s),
    and guessing still ran at ~12 tokens a second."""
    monkeypatch.setenv("INSTRUCTOR_TOKEN", TOKEN)
    monkeypatch.setattr("time.sleep", lambda *_: pytest.fail("a worker slept"))
    clock = Clock()
    throttle = TokenThrottle(max_failures=20, window_s=600.0, clock=clock)
    assert [check_token(f"guess-{i}", client="198.51.100.7", throttle=throttle) for i in range(20)] == ["wrong"] * 20
    assert check_token("guess-21", client="198.51.100.7", throttle=throttle) == "throttled"
    assert check_token(TOKEN, client="198.51.100.7", throttle=throttle) == "throttled"  # not even compared
    assert check_token(TOKEN, client="203.0.113.9", throttle=throttle) == "ok"  # the real instructor, elsewhere
    clock.now += 601
    assert check_token(TOKEN, client="198.51.100.7", throttle=throttle) == "ok"
    assert check_token("", client="198.51.100.7", throttle=throttle) == "missing"


def test_a_throttled_client_is_told_how_long_to_wait(monkeypatch):
    from types import SimpleNamespace

    from courserag.instructor import tools as instructor
    from courserag.ui.instructor.tab import InstructorTab

    monkeypatch.setenv("INSTRUCTOR_TOKEN", TOKEN)
    monkeypatch.setattr(instructor, "THROTTLE", TokenThrottle(max_failures=2))
    monkeypatch.setattr("courserag.ui.instructor.tab.THROTTLE", instructor.THROTTLE)
    monkeypatch.setattr(
        "courserag.ui.instructor.tab.check_token",
        lambda token, course_id, client: instructor.check_token(token, course_id, client, instructor.THROTTLE),
    )
    tab = InstructorTab.__new__(InstructorTab)
    from courserag.ui.clients import ClientPolicy

    tab.engine = SimpleNamespace(courses=[SimpleNamespace(id="csc3100")])
    tab.clients = ClientPolicy.of(["10.0.0.0/8"])  # the peer is a trusted proxy: its header names the client
    request = SimpleNamespace(headers={"x-forwarded-for": "198.51.100.8"}, client=SimpleNamespace(host="10.0.0.1"))
    for _ in range(2):
        assert tab._locked("wrong", "csc3100", "en", request).startswith("🔒")
    status = tab._locked(TOKEN, "csc3100", "en", request)
    assert "Too many wrong tokens" in status and "s." in status
    assert "次数过多" in tab._locked(TOKEN, "csc3100", "zh", request)


# -- feedback logs --------------------------------------------------------------------------------


def vote(log: FeedbackLog, question: str, vote_: str = "down") -> dict:
    return log.record_vote(question=question, answer="a", citations=[], course_id="c1", vote=vote_)


def test_a_torn_last_line_costs_only_itself(tmp_path):
    """Before: a torn last line made the next record unreadable too."""
    log = FeedbackLog(tmp_path)
    vote(log, "first question")
    with log.feedback_path.open("ab") as handle:
        handle.write(b'{"id": "torn", "vote": "do')  # a crash mid-write
    vote(log, "second question")
    assert [r["question"] for r in log.feedback()] == ["first question", "second question"]


def test_logs_are_rotated_and_bounded(tmp_path):
    """Before: feedback logs grew without bound."""
    log = FeedbackLog(tmp_path, max_bytes=4000)
    for i in range(300):
        vote(log, f"question {i}")
        log.log_refused(f"refused {i}", "c1", "both")
    for name in ("feedback.jsonl", "refused_questions.jsonl"):
        assert (tmp_path / name).stat().st_size <= 4000 + 1000
        assert (tmp_path / f"{name}.1").exists() and not (tmp_path / f"{name}.2").exists()
    assert sum(p.stat().st_size for p in tmp_path.iterdir()) < 4 * (4000 + 1000)
    assert log.feedback()[-1]["question"] == "question 299"  # the newest are there


def test_logs_are_read_from_their_tail(tmp_path, monkeypatch):
    """Before: every instructor view read each log whole (108 MB: 1.6 s, 170 MB)."""
    path = tmp_path / "refused_questions.jsonl"
    line = json.dumps(
        {"timestamp": "2025-01-01T00:00:00+00:00", "course": "c1", "scope": "both", "question": "old " + "x" * 200}
    )
    path.write_text((line + "\n") * 20_000, encoding="utf-8")  # ~4.5 MB
    log = FeedbackLog(tmp_path, read_bytes=64 * 1024)
    log.log_refused("the newest question", "c1", "both")
    read: list[int] = []
    real = FeedbackLog._tail

    def tail(self, p, budget):
        lines = real(self, p, budget)
        read.append(sum(len(line) + 1 for line in lines))
        return lines

    monkeypatch.setattr(FeedbackLog, "_tail", tail)
    gaps = log.content_gaps("c1", limit=1000)
    assert any(g["question"] == "the newest question" for g in gaps)
    assert len(gaps) < 1000 and sum(read) <= 64 * 1024


def test_public_reading_methods_are_unchanged(tmp_path):
    log = FeedbackLog(tmp_path)
    record = vote(log, "q")
    log.add_comment(record, "a comment")
    log.log_citations("c1", [{"source": "syllabus.md", "origin": "course"}])
    assert log.feedback("c1")[0]["comment"] == "a comment"
    assert log.most_cited("c1") == [("syllabus.md", 1, 0, 0)]
    assert log.content_gaps("c1")[0]["kind"] == "thumbs down"
    assert log.refused("c1") == []


# -- no server paths ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_broken_index_is_reported_without_the_servers_paths(sample_data, cached_embedder):
    """Before: store warnings under answers and on the course card named absolute paths."""
    from courserag.courses.directory import load_course_directory
    from courserag.engine.facade import RagEngine
    from tests.conftest import SAMPLE_DIRECTORY

    (sample_data / "index" / "csc3100" / "manifest.json").write_text("{broken", encoding="utf-8")
    engine = RagEngine(
        Settings(data_dir=sample_data),
        load_course_directory(SAMPLE_DIRECTORY),
        LocalCourseStore(sample_data / "index", cached_embedder.dim),
        cached_embedder,
    )
    answer = engine.ask("csc3100", "What is the late policy for homework?")
    status = engine.index_status("csc3100")
    shown = json.dumps(answer.to_json()) + status.detail
    assert answer.warnings and "cannot be read" in shown
    assert str(sample_data) not in shown and "/tmp" not in shown and "manifest.json" not in shown


# -- links out of a course folder -------------------------------------------------------------------


def test_links_out_of_the_course_folder_are_refused_by_the_build(tmp_path, fake_embedder):
    """Before: a symlinked file in a course folder was indexed and quoted, though the file
    route refused to serve it."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "syllabus.md").write_text("# Syllabus\n\nLate work loses 10% a day.\n", encoding="utf-8")
    secret = tmp_path / "outside" / "grades.md"
    secret.parent.mkdir()
    secret.write_text("# Grades\n\nAlice: 41/100.\n", encoding="utf-8")
    os.symlink(secret, docs / "grades.md")
    os.symlink(docs / "syllabus.md", docs / "same_folder.md")  # a link inside the folder is fine
    assert [p.name for p in course_files(docs)] == ["same_folder.md", "syllabus.md"]
    assert [p.name for p in linked_outside(docs)] == ["grades.md"]
    store = LocalCourseStore(tmp_path / "index", 8, "m")
    summary = build_course(
        Course("c1", "C", "d", "en", docs), store, fake_embedder, Settings(data_dir=tmp_path, embedding_model="m")
    )
    assert ("grades.md", "it links to a file outside the course folder") in summary.failed
    assert set(store.files("c1")) == {"same_folder.md", "syllabus.md"}
    assert "41/100" not in " ".join(c.text for c in store._index("c1").chunks)


# -- M7 and M8 -------------------------------------------------------------------------------------


def _damage(index_root: Path, course_id: str, source: str) -> None:
    manifest = json.loads((index_root / course_id / "manifest.json").read_text(encoding="utf-8"))
    segment = index_root / course_id / "segments" / manifest["files"][source]["segment"]
    segment.write_bytes(segment.read_bytes()[:200])  # truncated, as by a crash or a full disk


@pytest.mark.slow
def test_a_damaged_segment_leaves_the_course_answering_and_is_shown_and_repaired(
    sample_data, cached_embedder, tmp_path
):
    """M7, before: one truncated segment made every question fail with "internal error
    (BadZipFile)", instructor stats said healthy, and a build reported "0 failed"."""
    from courserag.courses.directory import load_course_directory
    from courserag.engine.facade import RagEngine
    from courserag.instructor.tools import InstructorTools
    from tests.conftest import SAMPLE_DIRECTORY

    _damage(sample_data / "index", "csc3100", "syllabus.md")
    engine = RagEngine(
        Settings(data_dir=sample_data),
        load_course_directory(SAMPLE_DIRECTORY),
        LocalCourseStore(sample_data / "index", cached_embedder.dim),
        cached_embedder,
    )
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nThe wombat lab code is W-9137.\n", encoding="utf-8")
    assert engine.add_upload("s1", note).ok
    mine = engine.ask("csc3100", "What is the wombat lab code?", session_id="s1")
    assert not mine.refused and "W-9137" in mine.answer
    assert any("syllabus.md" in w and "could not be read" in w for w in mine.warnings)
    course = engine.ask("csc3100", "What is the default maximum load factor before rehashing?")
    assert course.citations and all(c["source"] != "syllabus.md" for c in course.citations)
    assert engine.index_status("csc3100").damaged == ("syllabus.md",)
    stats = InstructorTools(engine, FeedbackLog(sample_data)).stats("csc3100")
    assert stats.damaged == ("syllabus.md",)
    summary = engine.build_course("csc3100")
    assert summary.repaired == 1 and not summary.failed and "1 repaired" in summary.text()
    assert engine.index_status("csc3100").damaged == ()
    assert engine.ask("csc3100", "What is the late policy for homework?").citations[0]["source"] == "syllabus.md"


class Killed(BaseException):
    """The build process killed at this point."""


@pytest.mark.slow
def test_a_rebuild_killed_halfway_leaves_the_old_index_serving_whole(sample_data, cached_embedder):
    """M8, before: "Rebuild all" deleted first; killed 3 s in, 4 of 8 files remained and were
    served without warning, and every rebuild answered from a partial index."""
    from courserag.courses.directory import load_course_directory
    from tests.conftest import SAMPLE_DIRECTORY

    course = load_course_directory(SAMPLE_DIRECTORY).get("csc3100")
    store = LocalCourseStore(sample_data / "index", cached_embedder.dim)
    before = store.files("csc3100")
    chunks_before = store.count("csc3100")
    seen_during: list[dict] = []

    def progress(done: int, total: int, name: str) -> None:
        seen_during.append(LocalCourseStore(sample_data / "index", cached_embedder.dim).files("csc3100"))
        if done == 5:
            raise Killed()

    with pytest.raises(Killed):
        build_course(course, store, cached_embedder, Settings(data_dir=sample_data), rebuild=True, progress=progress)
    assert all(files == before for files in seen_during)  # learners were answered from the whole old index
    after = LocalCourseStore(sample_data / "index", cached_embedder.dim)
    assert after.files("csc3100") == before and after.count("csc3100") == chunks_before
    assert after.unreadable_files("csc3100") == frozenset()
    hits = after.search("csc3100", np.asarray(cached_embedder.embed_query("late policy")), ["late", "policy"], 5)
    assert hits.vector and not hits.notices


@pytest.mark.slow
def test_a_course_never_indexed_says_how_to_index_it(sample_data, cached_embedder, tmp_path):
    """Before: `rag_engine.py ask` before `build_weaviate_index.py` refused every question as
    not in the materials, with no word that the course had no index at all."""
    from courserag.courses.directory import load_course_directory
    from courserag.engine.facade import RagEngine
    from tests.conftest import SAMPLE_DIRECTORY

    def engine_over(index_root: Path) -> RagEngine:
        return RagEngine(
            Settings(data_dir=index_root.parent),
            load_course_directory(SAMPLE_DIRECTORY),
            LocalCourseStore(index_root, cached_embedder.dim),
            cached_embedder,
        )

    never_built = engine_over(tmp_path / "empty" / "index")
    course = never_built.ask("csc3100", "When is the midterm?")
    assert course.refused
    assert any("no indexed materials" in w and "--course csc3100" in w for w in course.warnings)
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nThe wombat lab code is W-9137.\n", encoding="utf-8")
    assert never_built.add_upload("s1", note).ok
    mine = never_built.ask("csc3100", "What is the wombat lab code?", session_id="s1")
    assert not mine.refused and "W-9137" in mine.answer
    assert any("no indexed materials" in w for w in mine.warnings)
    built = engine_over(sample_data / "index").ask("csc3100", "When is the midterm?")
    assert not built.refused and not any("no indexed materials" in w for w in built.warnings)
