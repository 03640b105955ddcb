"""The load test through the real Gradio API.

The real app (`courserag.ui.build_demo(engine, settings)`, the same Blocks `python app.py`
serves, with the real embedder) runs on a free port of 127.0.0.1; simulated learners are
`gradio_client.Client`s, each its own Gradio session. Each session uploads its own file
holding a unique token through /upload, then asks its questions through /ask in its
selected course. Zero errors; every answer cites only that session's upload and the
selected course; the rendered chat never shows another session's token. p50/p95 are
printed. When the clients go away (their heartbeat closes), Gradio's unload releases their
pools: the engine's registry must be empty, and memory must not grow with the sessions.

Default: 6 sessions x 5 questions. FULL_LOAD_TEST=1: 20 sessions x 30 questions.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.app_helpers import rss
from tests.integration.test_concurrency import (
    Plan,
    course_sources,
    local_engine,
    make_plans,
    percentile,
    problems_in,
)

pytestmark = pytest.mark.slow

FULL = os.environ.get("FULL_LOAD_TEST") == "1"
SESSIONS, QUESTIONS = (20, 30) if FULL else (6, 5)
MB = 1024 * 1024


@pytest.fixture(scope="module")
def app(built_sample_data, embedder, tmp_path_factory):
    """The real Blocks over a real engine (local store, real embedder), in this process so
    the test can look at the engine's session registry and at this process's memory."""
    from tests.launched_app import launched

    root = tmp_path_factory.mktemp("load-app")
    data = root / "data"
    shutil.copytree(built_sample_data, data)  # the app appends its feedback logs here
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADIO_TEMP_DIR", str(root / "gradio-tmp"))
        patch.setenv("GRADIO_HEARTBEAT_INTERVAL", "1")  # a closed client is noticed within ~2 s
        patch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        engine = local_engine(data, embedder)
        with launched(engine, engine.settings) as running:  # as app.py launches it (tests/launched_app.py)
            yield SimpleNamespace(url=running.url, engine=engine, root=root)


def as_answer(payload: dict) -> SimpleNamespace:
    """The /ask JSON in the shape problems_in() reads (Answer.to_json() is the contract)."""
    return SimpleNamespace(
        to_json=lambda: payload,
        course_id=payload["course_id"],
        citations=payload["citations"],
        warnings=payload["warnings"],
        refused=payload["refused"],
        answer=payload["answer"],
    )


def run_session(
    url: str, plan: Plan, tokens: set[str], sources: dict, latencies: list, lock: threading.Lock
) -> list[str]:
    """One learner: its own Client (its own Gradio session), one upload, its questions."""
    from gradio_client import Client, handle_file

    problems: list[str] = []
    client = Client(url, verbose=False, httpx_kwargs={"timeout": 600})
    try:
        upload_log, notes_html, _choices, _cleared = client.predict([handle_file(str(plan.path))], api_name="/upload")
        if f"✓ {plan.file_name}" not in upload_log:
            return [f"{plan.sid}: upload failed: {upload_log}"]
        listed = client.predict(api_name="/list_uploads")
        if [f["name"] for f in listed] != [plan.file_name]:
            problems.append(f"{plan.sid}: list_uploads shows {listed}")
        for question in plan.questions:
            started = time.perf_counter()
            chat, _, payload = client.predict(question, [], plan.course, "both", api_name="/ask")
            elapsed = time.perf_counter() - started
            with lock:
                latencies.append(elapsed)
            if not isinstance(payload, dict):
                problems.append(f"{plan.sid}: {question!r} returned {payload!r}")
                continue
            problems += problems_in(as_answer(payload), plan, question, tokens, sources, "local")
            shown = json.dumps(chat, ensure_ascii=False)
            problems += [
                f"{plan.sid}: the chat shows another session's token" for t in tokens - {plan.token} if t in shown
            ]
    finally:
        client.close()
    return problems


def run_wave(app, plans: list[Plan], timeout_s: float) -> tuple[list[str], list[str], list[float]]:
    tokens = {p.token for p in plans}
    sources = course_sources()
    latencies: list[float] = []
    lock = threading.Lock()
    problems: list[str] = []
    errors: list[str] = []
    deadline = time.monotonic() + timeout_s
    with ThreadPoolExecutor(max_workers=len(plans), thread_name_prefix="learner") as pool:
        futures = {pool.submit(run_session, app.url, plan, tokens, sources, latencies, lock): plan for plan in plans}
        for future, plan in futures.items():
            try:
                problems += future.result(timeout=max(deadline - time.monotonic(), 1.0))
            except Exception as exc:  # noqa: BLE001 - every failure is reported below
                errors.append(f"{plan.sid}: {type(exc).__name__}: {exc}")
    return problems, errors, latencies


def wait_until_released(engine, timeout_s: float = 60.0) -> float:
    """Seconds until every session's pool was released (bounded)."""
    started = time.monotonic()
    while len(engine.sessions) and time.monotonic() - started < timeout_s:
        time.sleep(0.2)
    return time.monotonic() - started


def test_concurrent_sessions_through_the_gradio_api(app, tmp_path):
    # A warm-up wave as wide as the load (the model's and the allocator's high-water marks,
    # Gradio's first requests), then the baseline.
    problems, errors, _ = run_wave(
        app, make_plans(tmp_path / "warm", SESSIONS, QUESTIONS, "warm"), 3600 if FULL else 600
    )
    assert errors == [] and problems == []
    wait_until_released(app.engine)
    assert len(app.engine.sessions) == 0
    baseline = rss()

    # Every pool the load creates is watched through a weak reference.
    pools: list[weakref.ref] = []
    registry = app.engine.sessions
    real_get = registry.get

    def recording_get(session_id):
        pool = real_get(session_id)
        pools.append(weakref.ref(pool))
        return pool

    plans = make_plans(tmp_path / "load", SESSIONS, QUESTIONS, "load")
    registry.get = recording_get
    started = time.monotonic()
    try:
        problems, errors, latencies = run_wave(app, plans, 3600 if FULL else 600)
    finally:
        del registry.get
    wall = time.monotonic() - started

    assert errors == [], errors
    assert problems == [], problems
    assert len(latencies) == SESSIONS * QUESTIONS
    released_after = wait_until_released(app.engine)
    assert len(app.engine.sessions) == 0, f"{len(app.engine.sessions)} pools still held after the clients closed"
    growth = rss() - baseline
    assert pools and [ref for ref in pools if ref() is not None] == [], "released pools are still referenced"
    p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
    print(
        f"\n[gradio load] {SESSIONS} sessions x {QUESTIONS} questions = {len(latencies)} answers in {wall:.1f} s, "
        f"0 errors, 0 foreign citations; /ask p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
        f"max {max(latencies) * 1000:.0f} ms; all pools released {released_after:.1f} s after the clients closed; "
        f"RSS growth {growth / MB:+.1f} MB"
    )
    # Each session's pool is proven freed above (weak references). The first wave of a
    # given width raises the high-water marks (worker threads' malloc arenas, the model's
    # buffers), hence the warm-up wave of the same shape; what may still grow is Gradio's
    # per-session state (kept an hour after a tab closes, ~2 MB of heap per wave here).
    # Measured on the 2-core test machine: -15..+25 MB per same-shape wave after warm-up.
    assert growth < 100 * MB, f"RSS grew by {growth / MB:.0f} MB"


def test_uploaded_files_stay_in_gradios_temp_folder(app, tmp_path):
    """Gradio keeps the uploaded bytes in GRADIO_TEMP_DIR; the app reads them there and
    writes nothing of them anywhere else (DATA_DIR only gets the feedback logs)."""
    data = Path(app.engine.settings.data_dir)
    before_data = {p.relative_to(data).as_posix() for p in data.rglob("*")}
    plans = make_plans(tmp_path / "files", 2, 1, "files")
    problems, errors, _ = run_wave(app, plans, 300)
    assert errors == [] and problems == []
    after_data = {p.relative_to(data).as_posix() for p in data.rglob("*")}
    assert after_data - before_data <= {"citations.jsonl", "refused_questions.jsonl", "feedback.jsonl"}
    for plan in plans:
        copies = [p for p in Path(app.root).rglob(plan.file_name)]
        assert copies and all(p.resolve().is_relative_to((app.root / "gradio-tmp").resolve()) for p in copies)
        for logged in data.glob("*.jsonl"):
            assert plan.token not in logged.read_text(encoding="utf-8")
    for plan in plans:  # nothing named after an upload appeared in the shared temp folder
        assert not (Path(tempfile.gettempdir()) / plan.file_name).exists()


def test_an_api_caller_cannot_choose_another_sessions_id(app, tmp_path):
    """The session id lives in a server-side gr.State: it is never sent to a client, and a
    value a raw API call puts in its slot is ignored, so knowing (or guessing) a victim's id
    gives nothing."""
    import uuid

    import httpx

    from tests.integration.test_secrets import dependencies, queue_call

    deps = dependencies(app.url)
    code = "VAULT" + uuid.uuid4().hex[:10]
    before = set(app.engine.sessions._pools)
    uploaded = httpx.post(
        app.url + "gradio_api/upload",
        files={"files": ("victim.md", f"# Vault\n\nThe victim vault code is {code}.\n".encode(), "text/plain")},
        timeout=30,
    ).json()[0]
    victim_upload = queue_call(
        app.url,
        deps["upload"],
        [[{"path": uploaded, "orig_name": "victim.md", "meta": {"_type": "gradio.FileData"}}], None, "en"],
    )
    outputs = victim_upload["output"]["data"]
    (victim_sid,) = set(app.engine.sessions._pools) - before
    assert victim_sid not in json.dumps(outputs)  # the id never leaves the server
    question = "What is the victim vault code?"
    # Positive control: the victim's own session (the id the server keeps for it) finds it.
    assert code in app.engine.ask("csc3100", question, session_id=victim_sid, scope="notes").answer
    for scope in ("notes", "both"):
        stolen = queue_call(app.url, deps["ask"], [question, [], "csc3100", scope, victim_sid, "en", []])
        text = json.dumps(stolen["output"]["data"], ensure_ascii=False)
        assert code not in text and "victim.md" not in text
    app.engine.end_session(victim_sid)
