"""Many sessions at once on one engine: no errors, no cross-talk, nothing left behind.

N threads each own a session with its own upload holding a unique token and ask M
questions, all at the same time (a barrier makes every pool exist before anyone asks).
Every answer must cite only that session's upload and the selected course (course_id
checked on every citation), for both course stores: the local one and Weaviate over the
wire (the local fake server in tests/weaviate_server, both sample courses built into it
with courserag.courses.indexer.build_course). Ended sessions leave the registry empty, their pools
are garbage-collected, and the process's memory stays flat over repeated waves.

The embedder is the real MiniLM behind a text -> vector memo (conftest's `cached_embedder`):
the same vectors, computed once, so the test measures isolation and thread safety, not the
CPU. Other test modules import `build_weaviate_courses` and `local_engine` from here.
"""

from __future__ import annotations

import gc
import json
import os
import threading
import time
import uuid
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import pytest

from courserag.config.settings import Settings
from courserag.courses.directory import load_course_directory
from courserag.courses.indexer import build_course, course_files
from courserag.engine.facade import RagEngine
from courserag.stores import LocalCourseStore
from tests.app_helpers import rss

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLE_DIRECTORY = PROJECT_ROOT / "course_directory.yaml"
SESSIONS = int(os.environ.get("CONCURRENCY_SESSIONS", "6"))
QUESTIONS = int(os.environ.get("CONCURRENCY_QUESTIONS", "4"))
MB = 1024 * 1024


# --------------------------------------------------------------------------- helpers


def local_engine(data_dir: Path, embedder, **settings) -> RagEngine:
    config = Settings(data_dir=Path(data_dir), **settings)
    store = LocalCourseStore(Path(data_dir) / "index", embedder.dim)
    return RagEngine(config, load_course_directory(SAMPLE_DIRECTORY), store, embedder)


def build_weaviate_courses(
    server, data_dir: Path, embedder, course_ids: Sequence[str] | None = None, timeout_s: float = 5.0
):
    """Both sample courses (or `course_ids`) built into the fake Weaviate by the real builder.
    Returns (settings, store); close the store when done."""
    from courserag.stores.weaviate import WeaviateConfig, WeaviateCourseStore

    settings = Settings(
        data_dir=Path(data_dir),
        weaviate_url=server.url,
        weaviate_grpc_url=server.grpc_url,
        weaviate_timeout_s=timeout_s,
    )
    store = WeaviateCourseStore(WeaviateConfig.from_settings(settings), embedder.dim)
    directory = load_course_directory(SAMPLE_DIRECTORY)
    for course in directory.courses:
        if course_ids is not None and course.id not in course_ids:
            continue
        summary = build_course(course, store, embedder, settings)
        assert summary.indexed == summary.files and not summary.failed, summary.text()
    return settings, store


def course_sources() -> dict[str, set[str]]:
    directory = load_course_directory(SAMPLE_DIRECTORY)
    return {c.id: {p.relative_to(c.docs).as_posix() for p in course_files(c.docs)} for c in directory.courses}


# --------------------------------------------------------------------------- the load


NOTES_QUESTION = "What is the quokka checksum of our study group?"
COURSE_QUESTIONS = {
    "csc3100": [
        "What is the late policy for homework?",
        "What is the default maximum load factor before rehashing?",
        "DS2010 的学术诚信规定文件编号是什么？",  # the other course's content, asked here
        "Why is merge sort stable?",
    ],
    "ds2010": [
        "迟交作业怎么扣分？",
        "DBSCAN 需要哪些参数？",
        "What is the late policy for homework?",
        "岭回归和 Lasso 有什么区别？",
    ],
}
# Positive controls: these must be answered from this file of the selected course.
EXPECTED_FIRST_SOURCE = {
    ("csc3100", "What is the late policy for homework?"): "syllabus.md",
    ("ds2010", "迟交作业怎么扣分？"): "课程大纲.md",
}


@dataclass
class Plan:
    sid: str
    course: str
    file_name: str
    token: str
    path: Path
    questions: list[str]


def make_plans(folder: Path, count: int, questions: int, tag: str) -> list[Plan]:
    folder.mkdir(parents=True, exist_ok=True)
    plans = []
    for i in range(count):
        token = "qk" + uuid.uuid4().hex[:12]
        course = ("csc3100", "ds2010")[i % 2]
        name = f"{tag}_group_{i}_notes.md"
        path = folder / name
        path.write_text(
            f"# Study group {i}\n\nThe quokka checksum of study group {i} is {token}. "
            f"It is printed on the back of the lab key card.\n",
            encoding="utf-8",
        )
        pool = COURSE_QUESTIONS[course]
        asked = [NOTES_QUESTION] + [pool[(i + k) % len(pool)] for k in range(max(questions - 1, 0))]
        plans.append(Plan(f"{tag}-{i}-{uuid.uuid4().hex}", course, name, token, path, asked[:questions]))
    return plans


def problems_in(
    answer, plan: Plan, question: str, tokens: set[str], sources: dict[str, set[str]], store_name: str | None
) -> list[str]:
    """Everything wrong with one answer (empty list: fine)."""
    out = []
    where = f"{plan.sid} asked {question!r} in {plan.course}"
    payload = json.dumps(answer.to_json(), ensure_ascii=False)
    if answer.course_id != plan.course:
        out.append(f"{where}: answer.course_id is {answer.course_id}")
    for other in tokens - {plan.token}:
        if other in payload:
            out.append(f"{where}: another session's token {other} leaked")
    for cite in answer.citations:
        if cite["origin"] == "upload":
            if cite["source"] != plan.file_name or cite["course_id"] is not None:
                out.append(f"{where}: cites an upload that is not its own: {cite['source']}")
        elif cite["origin"] == "course":
            if cite["course_id"] != plan.course or cite["source"] not in sources[plan.course]:
                out.append(f"{where}: cites {cite['course_id']}/{cite['source']}")
            if store_name and cite["store"] != store_name:
                out.append(f"{where}: course citation from store {cite['store']}, expected {store_name}")
        else:
            out.append(f"{where}: unknown origin {cite['origin']}")
    if store_name and answer.warnings:
        out.append(f"{where}: warnings {answer.warnings}")
    if question == NOTES_QUESTION and (answer.refused or plan.token not in answer.answer):
        out.append(f"{where}: its own token is not in the answer: {answer.answer[:200]!r}")
    expected = EXPECTED_FIRST_SOURCE.get((plan.course, question))
    if expected and (answer.refused or answer.citations[0]["source"] != expected):
        out.append(f"{where}: expected {expected} first, got {[c['source'] for c in answer.citations]}")
    return out


@dataclass
class LoadResult:
    asked: int
    problems: list[str]
    errors: list[str]
    latencies: list[float]
    pools: list[weakref.ref]


def run_load(
    engine: RagEngine, plans: list[Plan], store_name: str | None = None, timeout_s: float = 300.0
) -> LoadResult:
    """Every plan in its own thread at once; each session is ended when its thread is done."""
    tokens = {p.token for p in plans}
    sources = course_sources()
    barrier = threading.Barrier(len(plans))
    lock = threading.Lock()
    result = LoadResult(0, [], [], [], [])

    def session(plan: Plan) -> None:
        try:
            uploaded = engine.add_upload(plan.sid, plan.path, plan.file_name)
            if not uploaded.ok:
                raise AssertionError(f"upload failed: {uploaded.error}")
            with lock:
                result.pools.append(weakref.ref(engine.sessions.peek(plan.sid)))
            barrier.wait(timeout=timeout_s)
            for question in plan.questions:
                started = time.perf_counter()
                answer = engine.ask(plan.course, question, session_id=plan.sid)
                elapsed = time.perf_counter() - started
                found = problems_in(answer, plan, question, tokens, sources, store_name)
                with lock:
                    result.asked += 1
                    result.latencies.append(elapsed)
                    result.problems.extend(found)
        except Exception as exc:  # noqa: BLE001 - collected and asserted on in the test thread
            with lock:
                result.errors.append(f"{plan.sid}: {type(exc).__name__}: {exc}")
            barrier.abort()
        finally:
            engine.end_session(plan.sid)

    deadline = time.monotonic() + timeout_s
    with ThreadPoolExecutor(max_workers=len(plans), thread_name_prefix="learner") as pool:
        futures = [pool.submit(session, plan) for plan in plans]
        for future in futures:
            future.result(timeout=max(deadline - time.monotonic(), 1.0))
    return result


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else 0.0


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def weaviate_courses(built_sample_data, cached_embedder):
    from tests.weaviate_server import start_server

    server = start_server()
    try:
        settings, store = build_weaviate_courses(server, built_sample_data, cached_embedder)
        yield server, settings, store
        store.close()
    finally:
        server.stop()


def engine_for(kind: str, built_sample_data, cached_embedder, weaviate_courses=None) -> RagEngine:
    if kind == "local":
        return local_engine(built_sample_data, cached_embedder)
    _, settings, store = weaviate_courses
    return RagEngine(settings, load_course_directory(SAMPLE_DIRECTORY), store, cached_embedder)


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize("kind", ["local", "weaviate"])
def test_concurrent_sessions_see_only_their_uploads_and_their_course(
    kind, request, built_sample_data, cached_embedder, tmp_path
):
    weaviate = request.getfixturevalue("weaviate_courses") if kind == "weaviate" else None
    engine = engine_for(kind, built_sample_data, cached_embedder, weaviate)
    plans = make_plans(tmp_path / "uploads", SESSIONS, QUESTIONS, kind)

    result = run_load(engine, plans, store_name=kind)

    assert result.errors == []
    assert result.problems == []
    assert result.asked == SESSIONS * QUESTIONS
    assert len(engine.sessions) == 0
    gc.collect()
    assert [ref for ref in result.pools if ref() is not None] == [], "ended sessions' pools are still referenced"
    print(
        f"\n[{kind}] {SESSIONS} sessions x {QUESTIONS} questions: {result.asked} answers, 0 errors, "
        f"0 cross-session or cross-course citations; p50 {percentile(result.latencies, 0.5) * 1000:.0f} ms, "
        f"p95 {percentile(result.latencies, 0.95) * 1000:.0f} ms"
    )


def test_the_same_session_from_many_threads_at_once(built_sample_data, cached_embedder, tmp_path):
    """One learner with two tabs (or a double click): concurrent uploads and questions on
    one session id leave a consistent pool and answer every question."""
    engine = local_engine(built_sample_data, cached_embedder)
    folder = tmp_path / "same"
    folder.mkdir()
    sid = "one-session"
    tokens = {}
    for i in range(6):
        tokens[f"part_{i}.md"] = "qk" + uuid.uuid4().hex[:12]
        (folder / f"part_{i}.md").write_text(
            f"# Part {i}\n\nThe quokka checksum of part {i} is {tokens[f'part_{i}.md']}.\n", encoding="utf-8"
        )

    def upload(name):
        return engine.add_upload(sid, folder / name, name)

    def ask(i):
        return engine.ask("csc3100", f"What is the quokka checksum of part {i % 6}?", session_id=sid)

    with ThreadPoolExecutor(max_workers=6) as pool:
        uploads = list(pool.map(upload, list(tokens) * 2, timeout=120))  # each file twice, concurrently
        assert all(u.ok for u in uploads), [u.error for u in uploads if not u.ok]
        answers = list(pool.map(ask, range(12), timeout=120))
    assert sorted(u.name for u in engine.uploads(sid)) == sorted(tokens)
    pool_ = engine.sessions.peek(sid)
    assert len(pool_) == len(tokens)  # one chunk each, no duplicates from the racing re-uploads
    for i, answer in enumerate(answers):
        assert not answer.refused and tokens[f"part_{i % 6}.md"] in answer.answer
    engine.end_session(sid)
    assert len(engine.sessions) == 0


def test_memory_is_flat_over_repeated_waves_of_sessions(built_sample_data, cached_embedder, tmp_path):
    """Sessions come and go; after they end, the process holds no more than it did before
    (bounded growth, measured with psutil RSS after a warm-up wave)."""
    engine = local_engine(built_sample_data, cached_embedder)
    warm = run_load(engine, make_plans(tmp_path / "warm", SESSIONS, 2, "warm"))
    assert warm.errors == [] and warm.problems == []
    baseline = rss()
    waves, asked = 4, 0
    for wave in range(waves):
        result = run_load(engine, make_plans(tmp_path / f"wave{wave}", SESSIONS, 2, f"wave{wave}"))
        assert result.errors == [] and result.problems == []
        asked += result.asked
        assert len(engine.sessions) == 0
    growth = rss() - baseline
    print(
        f"\n{waves} waves x {SESSIONS} sessions ({asked} answers): RSS {baseline / MB:.0f} MB -> growth {growth / MB:+.1f} MB"
    )
    assert growth < 40 * MB, f"RSS grew by {growth / MB:.1f} MB over {waves} waves of ended sessions"


def test_idle_sessions_are_swept(built_sample_data, cached_embedder, tmp_path):
    """Sessions whose tab never said goodbye are released by the idle sweep."""
    engine = local_engine(built_sample_data, cached_embedder)
    for plan in make_plans(tmp_path / "idle", 4, 1, "idle"):
        assert engine.add_upload(plan.sid, plan.path, plan.file_name).ok
    assert len(engine.sessions) == 4
    engine.sessions.idle_seconds = 0.1  # as if SESSION_IDLE_MINUTES had passed
    time.sleep(0.3)
    assert engine.sessions.sweep() == 4 and len(engine.sessions) == 0
