"""Failing services and failing disks: the learner still gets an answer, with a note, and
the course index is never left damaged.

- LLM endpoint: timeout, HTTP 500, malformed JSON, a stream that stops halfway, nothing
  listening -> the extractive answer with a visible note; the next question is answered
  just as quickly, and the model's answers come back once the endpoint recovers.
- Weaviate: unreachable at start (RagEngine.from_settings must not raise), lost between two
  questions (server.stop()), slower than its timeout (db.delay_s) -> a warning, answers from
  the session pool and the local fallback index when one was built; it recovers when the
  server is back. The CLIs: a build against a closed port fails within 30 s naming the URL;
  `rag_engine.py ask --json` exits 0 with the warning in `warnings`.
- Crash-safe builds: build_weaviate_index.py (local store) is SIGKILLed at several moments of
  a build; every time the previous index still loads and searches, and a rerun finishes
  with every file indexed.
- Disk full (ENOSPC on write or fsync) and a read-only DATA_DIR (EROFS) during a build: a
  clear per-file error naming the folder and the cause, the index untouched. Uploads and
  answers need no disk at all, and a failing feedback log never reaches the learner.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from courserag.answers.llm import ChatAnswerer
from courserag.config.persistence import file_sha256
from courserag.config.settings import Settings
from courserag.courses.directory import load_course_directory
from courserag.courses.indexer import build_course, course_files
from courserag.engine.facade import RagEngine
from courserag.stores import FallbackCourseStore, LocalCourseStore
from tests.app_helpers import free_port
from tests.integration.test_concurrency import SAMPLE_DIRECTORY, build_weaviate_courses
from tests.llm_server import start_fake_llm

PROJECT_ROOT = Path(__file__).resolve().parents[2]
LATE = "What is the late policy for homework?"
NOTE_FACT = "The wombat review session for the midterm is in room W-512 on Thursday evening."
NOTE_QUESTION = "Where is the wombat review session for the midterm?"


@pytest.fixture
def notes(tmp_path) -> Path:
    path = tmp_path / "wombat_notes.md"
    path.write_text(f"# Review\n\n{NOTE_FACT}\n", encoding="utf-8")
    return path


def docs() -> dict:
    return {c.id: c.docs for c in load_course_directory(SAMPLE_DIRECTORY).courses}


def shown(answer) -> str:
    """What the page shows of an answer (its HTML with entities read: links are inert there)."""
    import html

    from courserag.ui import format_answer

    return html.unescape(format_answer(answer, "en", docs()))


def subprocess_env(**extra) -> dict:
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "WEAVIATE_URL",
            "WEAVIATE_GRPC_URL",
            "WEAVIATE_API_KEY",
            "LLM_BASE_URL",
            "LLM_API_KEY",
            "INSTRUCTOR_TOKEN",
            "COURSE_DIRECTORY",
            "DATA_DIR",
        }
    }
    env.update(HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false", GRADIO_ANALYTICS_ENABLED="False")
    env.update({k: str(v) for k, v in extra.items()})
    return env


# --------------------------------------------------------------------------- the LLM


@pytest.mark.parametrize("mode", ["slow", "error500", "malformed", "truncated", "nothing-listening"])
def test_llm_failure_gives_extractive_answer_with_note_and_the_next_question_is_quick(
    mode, built_sample_data, cached_embedder
):
    server = start_fake_llm("ok" if mode == "nothing-listening" else mode)
    server.delay_s = 30.0  # far past the bound below: a timeout that did not fire would fail the test
    url = server.base_url if mode != "nothing-listening" else f"http://127.0.0.1:{free_port()}/v1"
    timeout_s = 1.5
    answerer = ChatAnswerer(url, "fake", "sk-fault-test", timeout_s=timeout_s)
    engine = RagEngine(
        Settings(data_dir=built_sample_data),
        load_course_directory(SAMPLE_DIRECTORY),
        LocalCourseStore(built_sample_data / "index", cached_embedder.dim),
        cached_embedder,
        answerer=answerer,
    )
    try:
        for question in (LATE, "What is the default maximum load factor before rehashing?"):
            started = time.monotonic()
            answer = engine.ask("csc3100", question)
            elapsed = time.monotonic() - started
            assert answer.mode == "extractive" and not answer.refused and answer.citations, answer
            assert answer.answer.startswith("From the materials:") and re.search(r"\[\d+\]", answer.answer)
            notes_ = [w for w in answer.warnings if "language model" in w]
            assert notes_ and "127.0.0.1" in notes_[0] and "sk-fault-test" not in notes_[0]
            assert elapsed < timeout_s + 10, f"{mode}: {elapsed:.1f} s"  # no retries, no hang
            page = shown(answer)
            assert "⚠️" in page and "language model" in page
        if mode != "nothing-listening":
            server.mode = "ok"
            recovered = engine.ask("csc3100", LATE)
            assert recovered.mode == "llm" and recovered.warnings == [] and "[1]" in recovered.answer
    finally:
        server.stop()


# --------------------------------------------------------------------------- Weaviate


def weaviate_warnings(answer, url: str) -> list[str]:
    return [w for w in answer.warnings if url in w and "unavailable" in w]


@pytest.mark.parametrize("local_index", [True, False], ids=["with-local-fallback", "no-local-index"])
def test_weaviate_unreachable_at_start(local_index, monkeypatch, sample_data, tmp_path, cached_embedder, notes):
    url = f"http://127.0.0.1:{free_port()}"
    data_dir = sample_data if local_index else tmp_path / "empty-data"
    monkeypatch.setenv("WEAVIATE_URL", url)
    monkeypatch.setenv("WEAVIATE_TIMEOUT_S", "2")
    monkeypatch.setenv("DATA_DIR", str(data_dir))

    started = time.monotonic()
    engine = RagEngine.from_settings(Settings.from_env())  # connects to nothing yet: must not raise
    assert time.monotonic() - started < 10
    assert engine.store.name == "weaviate" and isinstance(engine.store, FallbackCourseStore) == local_index
    engine.embedder = cached_embedder  # the same model's vectors, memoised

    started = time.monotonic()
    course = engine.ask("csc3100", LATE)
    assert time.monotonic() - started < 20
    assert weaviate_warnings(course, url), course.warnings
    assert url in shown(course) and "⚠️" in shown(course)
    if local_index:
        assert not course.refused and course.citations[0]["source"] == "syllabus.md"
        assert {c["store"] for c in course.citations} == {"local"}
        assert "local copy" in course.warnings[0]
    else:
        assert course.refused and course.citations == []

    assert engine.add_upload("s1", notes).ok
    mine = engine.ask("csc3100", NOTE_QUESTION, session_id="s1")
    assert not mine.refused and mine.citations[0]["source"] == "wombat_notes.md" and "W-512" in mine.answer
    assert weaviate_warnings(mine, url)

    from courserag.ui import StudyApp

    card = StudyApp(engine, engine.settings).course_card("csc3100", "en")
    if not local_index:
        assert "⚠️" in card and url in card


@pytest.mark.parametrize("fallback", [True, False], ids=["with-local-fallback", "no-fallback"])
def test_weaviate_lost_mid_session_then_back(fallback, weaviate_server, built_sample_data, cached_embedder, notes):
    settings, store = build_weaviate_courses(
        weaviate_server, built_sample_data, cached_embedder, ["csc3100"], timeout_s=2
    )
    local = LocalCourseStore(built_sample_data / "index", cached_embedder.dim) if fallback else None
    engine = RagEngine(
        settings,
        load_course_directory(SAMPLE_DIRECTORY),
        FallbackCourseStore(store, local) if local else store,
        cached_embedder,
    )
    try:
        assert engine.add_upload("s1", notes).ok
        before = engine.ask("csc3100", LATE, session_id="s1")
        assert before.warnings == [] and {c["store"] for c in before.citations if c["origin"] == "course"} == {
            "weaviate"
        }

        weaviate_server.stop()
        started = time.monotonic()
        during = engine.ask("csc3100", LATE, session_id="s1")
        assert time.monotonic() - started < 25
        assert weaviate_warnings(during, weaviate_server.url), during.warnings
        course_stores = {c["store"] for c in during.citations if c["origin"] == "course"}
        assert course_stores == ({"local"} if fallback else set())
        mine = engine.ask("csc3100", NOTE_QUESTION, session_id="s1")
        assert "W-512" in mine.answer and weaviate_warnings(mine, weaviate_server.url)

        weaviate_server.start()
        after = engine.ask("csc3100", LATE, session_id="s1")
        assert after.warnings == [] and not after.refused
        assert {c["store"] for c in after.citations if c["origin"] == "course"} == {"weaviate"}
    finally:
        store.close()


def test_weaviate_slower_than_its_timeout(weaviate_server, built_sample_data, cached_embedder):
    settings, store = build_weaviate_courses(
        weaviate_server, built_sample_data, cached_embedder, ["csc3100"], timeout_s=1
    )
    local = LocalCourseStore(built_sample_data / "index", cached_embedder.dim)
    engine = RagEngine(
        settings,
        load_course_directory(SAMPLE_DIRECTORY),
        FallbackCourseStore(store, local) if local else store,
        cached_embedder,
    )
    try:
        weaviate_server.db.delay_s = 12.0  # past the bound below: only the deadline can make it
        started = time.monotonic()
        slow = engine.ask("csc3100", LATE)
        elapsed = time.monotonic() - started
        assert elapsed < 10, elapsed
        # Either the client's own query timeout or our deadline around it fires first.
        assert any(
            weaviate_server.url in w and ("timed out" in w or "did not answer within" in w) for w in slow.warnings
        ), slow.warnings
        assert not slow.refused and {c["store"] for c in slow.citations} == {"local"}

        weaviate_server.db.delay_s = 0.0
        fast = engine.ask("csc3100", LATE)
        assert fast.warnings == [] and {c["store"] for c in fast.citations} == {"weaviate"}
    finally:
        weaviate_server.db.delay_s = 0.0
        store.close()


# Set for the CLI runs below: whatever they print must not contain them.
CLI_SECRETS = {
    "WEAVIATE_API_KEY": "wv-" + uuid.uuid4().hex,
    "LLM_API_KEY": "sk-" + uuid.uuid4().hex,
    "INSTRUCTOR_TOKEN": "it-" + uuid.uuid4().hex,
}


def test_build_cli_against_a_closed_port_fails_within_30_s_naming_the_url(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "build_weaviate_index.py", "--course", "csc3100", "--no-progress"],
        cwd=PROJECT_ROOT,
        env=subprocess_env(WEAVIATE_URL=url, WEAVIATE_TIMEOUT_S=2, DATA_DIR=tmp_path / "data", **CLI_SECRETS),
        capture_output=True,
        text=True,
        timeout=90,
    )
    elapsed = time.monotonic() - started
    assert proc.returncode != 0
    assert elapsed < 30, f"took {elapsed:.1f} s"
    assert url in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert not any(value in proc.stdout + proc.stderr for value in CLI_SECRETS.values())


def test_ask_cli_with_weaviate_down_exits_0_with_the_warning(sample_data, tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    note = tmp_path / "cli_notes.txt"
    note.write_text(NOTE_FACT + "\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "rag_engine.py", "ask", "--course", "csc3100", "--upload", str(note), "--json", LATE],
        cwd=PROJECT_ROOT,
        env=subprocess_env(WEAVIATE_URL=url, WEAVIATE_TIMEOUT_S=2, DATA_DIR=sample_data, **CLI_SECRETS),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert not any(value in proc.stdout + proc.stderr for value in CLI_SECRETS.values())
    assert "W-512" not in proc.stderr  # the upload's text is not logged
    result = json.loads(proc.stdout)
    assert any(url in w and "unavailable" in w for w in result["warnings"]), result["warnings"]
    assert not result["refused"] and result["citations"][0]["source"] == "syllabus.md"
    assert {c["store"] for c in result["citations"] if c["origin"] == "course"} == {"local"}
    assert "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- crash-safe builds

COURSE_ID = "crashy"
GENERATED_FILES = 12
WORDS = (
    "array heap tree graph vertex edge queue stack hash bucket probe rehash sort merge pivot "
    "partition invariant amortized recursion iteration pointer node leaf root height balance "
    "rotation insert delete search traverse frontier visited distance weight cycle path"
).split()


def generated_text(i: int) -> str:
    rng = random.Random(i)
    paragraphs = []
    for p in range(3):
        words = " ".join(rng.choice(WORDS) for _ in range(50))
        paragraphs.append(f"## Part {p}\n\nGenerated note crashmarker{i} paragraph {p}: {words}.")
    return f"# Generated lecture {i}\n\n" + "\n\n".join(paragraphs) + "\n"


def make_course(root: Path) -> tuple[Path, Path]:
    """A copy of csc3100 as course 'crashy' and a course directory yaml pointing at it."""
    docs = root / "courses" / COURSE_ID
    shutil.copytree(PROJECT_ROOT / "courses" / "csc3100", docs)
    yaml_path = root / "course_directory.yaml"
    yaml_path.write_text(
        "courses:\n"
        f"  - id: {COURSE_ID}\n"
        "    name: Crash test course\n"
        "    description: A copy of CSC3100 with generated extra files.\n"
        "    language: en\n"
        f"    docs: courses/{COURSE_ID}\n",
        encoding="utf-8",
    )
    return docs, yaml_path


def build_in_process(yaml_path: Path, data_dir: Path, embedder) -> None:
    course = load_course_directory(yaml_path).get(COURSE_ID)
    store = LocalCourseStore(data_dir / "index", embedder.dim)
    summary = build_course(course, store, embedder, Settings(data_dir=data_dir, course_directory=yaml_path))
    assert not summary.failed and summary.indexed + summary.skipped == summary.files, summary.text()


def manifest(data_dir: Path) -> dict:
    try:
        return json.loads((data_dir / "index" / COURSE_ID / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"files": {}}


def check_index_usable(data_dir: Path, dim: int, required: set[str]) -> dict:
    """The index loads and searches, from a fresh store (a fresh process would see this)."""
    store = LocalCourseStore(data_dir / "index", dim)
    files = store.files(COURSE_ID)
    assert required <= set(files), sorted(required - set(files))
    assert store.count(COURSE_ID) == sum(r.chunks for r in files.values()) > 0
    hits = store.lexical_search(COURSE_ID, ["late", "policy", "homework"], 5)
    assert hits and hits[0].chunk.source == "syllabus.md"
    vector = np.random.default_rng(0).normal(size=dim).astype(np.float32)
    assert len(store.vector_search(COURSE_ID, vector / np.linalg.norm(vector), 5)) == 5
    for source in files:
        if source.startswith("generated/"):
            i = int(source.split("_")[-1].split(".")[0])
            assert any(h.chunk.source == source for h in store.lexical_search(COURSE_ID, [f"crashmarker{i}"], 3))
    return files


def start_build(yaml_path: Path, data_dir: Path, log: Path) -> subprocess.Popen:
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "build_weaviate_index.py", "--course", COURSE_ID, "--no-progress", "--json"],
            cwd=PROJECT_ROOT,
            env=subprocess_env(DATA_DIR=data_dir, COURSE_DIRECTORY=yaml_path),
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def kill_when(proc: subprocess.Popen, condition, timeout_s: float = 180.0) -> bool:
    """SIGKILL the build as soon as `condition()` holds; False if it finished first."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.005)
    proc.kill()
    proc.wait(timeout=30)
    raise AssertionError(f"the kill condition did not happen within {timeout_s:.0f} s")


def test_a_build_killed_at_any_moment_leaves_a_usable_index_and_a_rerun_finishes(tmp_path, cached_embedder):
    docs, yaml_path = make_course(tmp_path)
    data_dir = tmp_path / "data"
    build_in_process(yaml_path, data_dir, cached_embedder)  # the previous index: the plain csc3100 copy
    original = set(manifest(data_dir)["files"])
    check_index_usable(data_dir, cached_embedder.dim, original)

    # New work: generated files and a changed syllabus (a replace of an existing file).
    (docs / "generated").mkdir()
    for i in range(GENERATED_FILES):
        (docs / "generated" / f"lecture_{i:02d}.md").write_text(generated_text(i), encoding="utf-8")
    with (docs / "syllabus.md").open("a", encoding="utf-8") as handle:
        handle.write("\n\nAddendum: the crash-test addendum changes this file's hash.\n")
    expected = {p.relative_to(docs).as_posix() for p in course_files(docs)}
    segments = data_dir / "index" / COURSE_ID

    def generation() -> int:
        return manifest(data_dir).get("generation", 0)

    log = tmp_path / "build.log"
    moments = []
    # 1. while it is still starting up (imports, model load)
    proc = start_build(yaml_path, data_dir, log)
    start = time.monotonic()
    moments.append(("starting up", kill_when(proc, lambda: time.monotonic() - start > 0.5)))
    check_index_usable(data_dir, cached_embedder.dim, original)
    # 2. in the middle of writing a file (a temporary segment or manifest exists), or, if
    #    the 5 ms polling misses every such moment, right after its second write
    g0 = generation()
    seen = []

    def writing() -> bool:
        if any(segments.rglob("*.tmp")):
            seen.append("while a file is being written")
            return True
        if generation() >= g0 + 2:
            seen.append("right after a write")
            return True
        return False

    proc = start_build(yaml_path, data_dir, log)
    killed = kill_when(proc, writing)
    moments.append((seen[0] if seen else "during its first writes", killed))
    check_index_usable(data_dir, cached_embedder.dim, original)
    # 3. half-way through the remaining files
    done = len(manifest(data_dir)["files"])
    target = done + (len(expected) - done) // 2
    proc = start_build(yaml_path, data_dir, log)
    moments.append(("half-way", kill_when(proc, lambda: len(manifest(data_dir)["files"]) >= target)))

    for moment, killed in moments:
        assert killed, f"the build finished before the kill moment '{moment}'; make the course bigger"
    files = check_index_usable(data_dir, cached_embedder.dim, original)
    assert len(files) < len(expected), "the kills should have left work for the rerun"

    final_log = tmp_path / "final.log"
    proc = start_build(yaml_path, data_dir, final_log)
    assert proc.wait(timeout=300) == 0, final_log.read_text(errors="replace")[-3000:]
    output = final_log.read_text(errors="replace")
    summary = json.loads(output[output.index("[\n") :])
    assert summary[0]["failed"] == [] and summary[0]["files"] == len(expected)
    files = check_index_usable(data_dir, cached_embedder.dim, expected)
    assert set(files) == expected
    for source, record in files.items():
        assert record.file_hash == file_sha256(docs / source), source
    leftovers = sorted(p.name for p in segments.rglob("*.tmp"))
    print(
        f"\nkilled at: {', '.join(m for m, _ in moments)}; rerun indexed {len(expected)} files; "
        f"{len(leftovers)} temporary files left by the kills"
    )


# --------------------------------------------------------------------------- full or read-only disk


class _FullDisk:
    def __init__(self, handle, error):
        self.handle, self.error = handle, error

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.handle.close()

    def write(self, data):
        raise self.error

    def flush(self):
        pass

    def fileno(self):
        return self.handle.fileno()


def _patch_disk(monkeypatch, kind: str) -> str:
    import courserag.stores.local as local_module

    if kind == "ENOSPC-on-write":
        real = os.fdopen
        error = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        monkeypatch.setattr(
            local_module.os, "fdopen", lambda fd, mode="r", *a, **k: _FullDisk(real(fd, mode, *a, **k), error)
        )
        return os.strerror(errno.ENOSPC)
    if kind == "ENOSPC-on-fsync":

        def fsync(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(local_module.os, "fsync", fsync)
        return os.strerror(errno.ENOSPC)

    # A read-only DATA_DIR: creating the temporary file fails (root ignores chmod, so simulate).
    def mkstemp(*args, dir=None, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(dir))

    monkeypatch.setattr(local_module.tempfile, "mkstemp", mkstemp)
    return os.strerror(errno.EROFS)


@pytest.mark.parametrize("kind", ["ENOSPC-on-write", "ENOSPC-on-fsync", "EROFS-read-only-data-dir"])
def test_full_or_read_only_disk_during_a_build_is_a_clear_error_and_keeps_the_index(
    kind, tmp_path, monkeypatch, cached_embedder, capsys
):
    docs, yaml_path = make_course(tmp_path)
    data_dir = tmp_path / "data"
    build_in_process(yaml_path, data_dir, cached_embedder)
    before = manifest(data_dir)
    (docs / "generated").mkdir()
    (docs / "generated" / "lecture_00.md").write_text(generated_text(0), encoding="utf-8")
    (docs / "syllabus.md").write_text(
        (docs / "syllabus.md").read_text(encoding="utf-8") + "\nChanged.\n", encoding="utf-8"
    )

    import courserag.embedders as embedding_module
    from courserag.cli import build_main

    course = load_course_directory(yaml_path).get(COURSE_ID)
    settings = Settings(data_dir=data_dir, course_directory=yaml_path)
    with monkeypatch.context() as patch:
        reason = _patch_disk(patch, kind)
        summary = build_course(
            course, LocalCourseStore(data_dir / "index", cached_embedder.dim), cached_embedder, settings
        )
        # The command line says so too (same builder, same store).
        patch.setenv("DATA_DIR", str(data_dir))
        patch.setenv("COURSE_DIRECTORY", str(yaml_path))
        patch.setattr(embedding_module, "get_embedder", lambda *args, **kwargs: cached_embedder)
        code = build_main(["--course", COURSE_ID, "--no-progress"])
    assert summary.indexed == 0 and sorted(f for f, _ in summary.failed) == ["generated/lecture_00.md", "syllabus.md"]
    for _, why in summary.failed:
        assert reason in why and str(data_dir / "index") in why and "Traceback" not in why, why
    out = capsys.readouterr()
    assert "2 failed" in out.out and reason in out.out and "Traceback" not in out.out + out.err
    print(f"\n[{kind}] build_main exit code {code}: {out.out.splitlines()[0]}")

    assert manifest(data_dir) == before  # untouched: same files, hashes, segments, generation
    check_index_usable(data_dir, cached_embedder.dim, set(before["files"]))
    assert not list((data_dir / "index").rglob("*.tmp"))
    # Once there is room again, the next build does the work.
    build_in_process(yaml_path, data_dir, cached_embedder)
    assert set(manifest(data_dir)["files"]) == set(before["files"]) | {"generated/lecture_00.md"}


_DISK: dict[int, OSError] = {}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _disk_hook(event: str, args: tuple) -> None:
    error = _DISK.get(threading.get_ident())
    if error is None:
        return
    if event == "open" and args:
        path, mode, flags = (tuple(args) + (None, None, None))[:3]
        if isinstance(path, int):
            return  # a descriptor already open (a pipe to the parser's worker), not a file written to disk
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            mode is None and isinstance(flags, int) and bool(flags & _WRITE_FLAGS)
        )
        if writing:
            raise OSError(
                error.errno, error.strerror, os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else None
            )
    elif event in ("os.mkdir", "tempfile.mkstemp", "os.rename", "os.replace"):
        raise OSError(error.errno, error.strerror)


sys.addaudithook(_disk_hook)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS], ids=["disk-full", "read-only"])
def test_uploads_and_answers_need_no_disk_and_a_failing_feedback_log_stays_hidden(
    code, sample_data, cached_embedder, tmp_path, caplog
):
    """Every write this thread attempts fails (audit hook), as on a full or read-only disk."""
    from courserag.instructor.feedback import FeedbackLog
    from courserag.ui import StudyApp

    engine = RagEngine(
        Settings(data_dir=sample_data),
        load_course_directory(SAMPLE_DIRECTORY),
        LocalCourseStore(sample_data / "index", cached_embedder.dim),
        cached_embedder,
        gap_log=FeedbackLog(sample_data),
    )
    app = StudyApp(engine, engine.settings)
    note = tmp_path / "wombat_notes.md"
    note.write_text(f"# Review\n\n{NOTE_FACT}\n", encoding="utf-8")
    sid = uuid.uuid4().hex
    caplog.set_level(logging.ERROR, logger="courserag")
    _DISK[threading.get_ident()] = OSError(code, os.strerror(code))
    try:
        with pytest.raises(OSError):
            open(tmp_path / "probe.txt", "w")  # the simulated disk really refuses writes
        upload_log, *_ = app.upload([str(note)], sid, "en", None)
        assert "✓ wombat_notes.md" in upload_log
        *_, (chat, _, _turns, payload) = list(app.ask(NOTE_QUESTION, [], "csc3100", "both", sid, "en", []))
        refused = list(app.ask("What is the capital of France?", [], "csc3100", "both", sid, "en", []))[-1]
    finally:
        _DISK.pop(threading.get_ident(), None)
    assert payload["refused"] is False and "W-512" in payload["answer"]
    assert refused[3]["refused"] is True
    assert os.strerror(code) not in json.dumps(chat) + json.dumps(refused[0])  # the learner sees no disk error
    assert any("content-gap logs" in r.getMessage() for r in caplog.records)  # the operator does
    assert not (sample_data / "refused_questions.jsonl").exists()
