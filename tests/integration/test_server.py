"""The running app from outside, with every limit scaled down: M1, M4, M5, the CSP, and H1's
"another learner's note waits for two slow files".

One in-process app (the real Blocks over a real engine), started as `app.py` starts it
(tests/launched_app.py), on a free port of 127.0.0.1. Clients are told apart by
X-Forwarded-For, 127.0.0.1 being configured as the trusted proxy (as a Space's is), so each
test has its own.
"""

from __future__ import annotations

import itertools
import json
import shutil
import threading
import time
import uuid
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from courserag.config.settings import Limits, ParseBudget, ServerLimits, Settings
from docgen import bombs
from tests.app_helpers import dependencies, queue_call
from tests.launched_app import launched

pytestmark = pytest.mark.slow

MB = 1024 * 1024
SLACK_S = 10.0
STATE_CAPACITY = 5  # Gradio's per-session store, scaled down from 10,000
PARSE_WALL_S = 8.0


@pytest.fixture(scope="module")
def app(built_sample_data, cached_embedder, tmp_path_factory):
    from courserag.courses.directory import load_course_directory
    from courserag.engine.facade import RagEngine
    from courserag.stores import LocalCourseStore
    from tests.conftest import SAMPLE_DIRECTORY

    root = tmp_path_factory.mktemp("server-app")
    data = root / "data"
    shutil.copytree(built_sample_data, data)
    settings = Settings(
        data_dir=data,
        limits=replace(Limits(), max_file_mb=1.0, max_files_per_upload=3, max_pdf_content_mb=10_000),
        parse=ParseBudget(wall_s=PARSE_WALL_S, cpu_s=60.0),
        # The tests stand in for a Space's proxy: 127.0.0.1 is trusted to name the client.
        server=ServerLimits(
            max_request_mb=0.5,
            upload_tmp_mb=3.0,
            uploads_per_client=4,
            max_history_chars=20_000,
            trusted_proxies=("127.0.0.1",),
        ),
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADIO_TEMP_DIR", str(root / "gradio-tmp"))
        patch.setenv("GRADIO_HEARTBEAT_INTERVAL", "1")
        engine = RagEngine(
            settings,
            load_course_directory(SAMPLE_DIRECTORY),
            LocalCourseStore(data / "index", cached_embedder.dim),
            cached_embedder,
        )
        with launched(engine, settings, state_session_capacity=STATE_CAPACITY) as running:
            yield SimpleNamespace(url=running.url, engine=engine, demo=running.demo, tmp=root / "gradio-tmp", root=root)


_CLIENTS = itertools.count(1)


def client_headers() -> dict:
    """A client address no other call in this run has used (random ones collided now and then)."""
    n = next(_CLIENTS)
    return {"X-Forwarded-For": f"203.0.113.7, 198.18.{n // 250}.{n % 250 + 1}"}


def upload_raw(app, name: str, body: bytes, headers: dict | None = None) -> httpx.Response:
    return httpx.post(
        app.url + "gradio_api/upload",
        files={"files": (name, body, "application/octet-stream")},
        headers=headers or client_headers(),
        timeout=60,
    )


def file_data(path: str, name: str) -> dict:
    return {"path": path, "orig_name": name, "meta": {"_type": "gradio.FileData"}}


def client(app, headers: dict | None = None):
    from gradio_client import Client

    return Client(app.url, verbose=False, headers=headers or client_headers(), httpx_kwargs={"timeout": 120})


# -- the Content-Security-Policy ---------------------------------------------------------------


def test_every_response_forbids_remote_images_and_scripts(app):
    for response in (httpx.get(app.url), httpx.get(app.url + "config"), httpx.get(app.url + "gradio_api/info")):
        policy = response.headers.get("content-security-policy", "")
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";") if " " in d.strip())
        assert directives["img-src"] == "'self' data: blob:", policy
        assert "http" not in directives["script-src"] and "*" not in directives["script-src"]
        assert directives["connect-src"] == "'self'" and directives["object-src"] == "'none'"
        assert directives["form-action"] == "'self'"
        assert response.headers.get("x-content-type-options") == "nosniff"


# -- M4: bounded inputs ------------------------------------------------------------------------


def test_a_huge_request_body_is_refused_before_any_work(app):
    """Before: a 20 MB chat history was accepted; a 5 MB one cost 42 s of CPU in LLM mode."""
    deps = dependencies(app.url)
    history = [{"role": "user", "content": "x" * 1000}] * 5000  # 5 MB
    body = {
        "data": ["What is the late policy?", history, "csc3100", "both", None, "en", []],
        "fn_index": deps["ask"]["id"],
        "session_hash": uuid.uuid4().hex[:11],
        "event_data": None,
        "trigger_id": None,
    }
    started = time.monotonic()
    response = httpx.post(app.url + "gradio_api/queue/join", json=body, timeout=60)
    assert response.status_code == 413 and time.monotonic() - started < SLACK_S

    def chunks():  # no Content-Length: counted as it streams
        for _ in range(8):
            yield b"x" * (128 * 1024)

    response = httpx.post(
        app.url + "gradio_api/queue/join", content=chunks(), timeout=60, headers={"content-type": "application/json"}
    )
    assert response.status_code == 413


def test_a_long_client_history_is_cut_before_the_answer(app):
    messages = [
        {
            "role": "user" if i % 2 == 0 else "assistant",
            "content": [{"type": "text", "text": f"message {i} " + "y" * 900}],
        }
        for i in range(60)
    ]
    chat, _, payload = client(app).predict(
        "What is the late policy for homework?", messages, "csc3100", "both", api_name="/ask"
    )
    assert payload["citations"]
    assert len(chat) < len(messages) + 2 and sum(len(json.dumps(m)) for m in chat[:-2]) < 30_000
    assert "message 59" in json.dumps(chat)  # the newest are the ones kept


# -- M5: Gradio's upload route -----------------------------------------------------------------


def test_only_the_file_types_the_app_reads_can_be_uploaded(app):
    """Before: any file type was stored (111 MB/s) and kept for up to 90 minutes."""
    before = sorted(p for p in app.tmp.rglob("*") if p.is_file()) if app.tmp.exists() else []
    for name in ("page.html", "tool.exe", "image.svg", "archive.zip"):
        response = upload_raw(app, name, b"<html><script>alert(1)</script></html>")
        assert response.status_code == 415, (name, response.status_code, response.text)
    after = sorted(p for p in app.tmp.rglob("*") if p.is_file())
    assert after == before  # nothing was left behind
    assert upload_raw(app, "notes.md", b"# Notes\n\nfine\n").status_code == 200


def test_uploads_are_counted_per_client(app):
    headers = client_headers()
    codes = [upload_raw(app, f"n{i}.md", b"# n\n\nx\n", headers).status_code for i in range(5)]
    assert codes == [200, 200, 200, 200, 429]
    assert upload_raw(app, "n.md", b"# n\n\nx\n").status_code == 200  # another client is not affected


def test_oversized_uploads_are_refused(app):
    assert upload_raw(app, "big.md", b"x" * int(1.5 * MB)).status_code == 413  # over MAX_FILE_MB
    many = [("files", (f"n{i}.md", b"y" * (900 * 1024), "text/plain")) for i in range(5)]
    response = httpx.post(app.url + "gradio_api/upload", files=many, headers=client_headers(), timeout=60)
    assert response.status_code == 413  # over MAX_FILES_PER_UPLOAD files at their limit


def test_uploaded_files_are_not_served_back(app):
    response = upload_raw(app, "private.md", b"# Private\n\nmy notes\n")
    (path,) = response.json()
    assert Path(path).is_file()
    for url in (f"gradio_api/file={path}", f"gradio_api/file={path.replace('/', '%2F')}"):
        served = httpx.get(app.url + url)
        assert served.status_code in (403, 404) and b"my notes" not in served.content
    course = Path(__file__).resolve().parents[2] / "courses" / "csc3100" / "syllabus.md"
    assert httpx.get(app.url + f"gradio_api/file={course}").status_code in (403, 404)  # nor course files (issue 20)
    assert httpx.get(app.url + "course-file/csc3100/syllabus.md").status_code == 200  # they open by their own route


# -- M1: sessions the app owns -----------------------------------------------------------------


def test_cheap_requests_cannot_evict_a_learners_notes(app, tmp_path):
    """Before: requests with new session hashes pushed the learner's state out of Gradio's store
    (10,000 in production, 5 here); the notes panel still listed the file, answers no longer
    used it, and the pool stayed in memory."""
    learner = client(app)
    note = tmp_path / "wombat_notes.md"
    note.write_text("# Wombats\n\nThe wombat lab code for this course is W-9137.\n", encoding="utf-8")
    from gradio_client import handle_file

    log_html, *_ = learner.predict([handle_file(str(note))], api_name="/upload")
    assert "✓ wombat_notes.md" in log_html
    pools = len(app.engine.sessions)
    deps = dependencies(app.url)
    for _ in range(4 * STATE_CAPACITY):
        queue_call(app.url, deps["list_uploads"], [None])  # a new session hash each time
        httpx.post(
            app.url + "gradio_api/run/clear", json={"data": [], "session_hash": uuid.uuid4().hex[:11]}, timeout=30
        )
    assert len(app.demo.app.state_holder.session_data) <= STATE_CAPACITY
    _, _, payload = learner.predict("What is the wombat lab code?", [], "csc3100", "notes", api_name="/ask")
    assert payload["refused"] is False and "W-9137" in payload["answer"]
    assert len(app.engine.sessions) == pools  # the cheap requests made no pool


def test_direct_calls_from_unknown_sessions_leave_no_state(app):
    holder = app.demo.app.state_holder
    for _ in range(3):
        session = uuid.uuid4().hex[:11]
        response = httpx.post(app.url + "gradio_api/run/clear", json={"data": [], "session_hash": session}, timeout=30)
        assert response.status_code == 200
        assert session not in holder


# -- H1: one session's slow files do not hold up another session's note ---------------------------


def test_another_learners_note_does_not_wait_for_two_slow_files(app, tmp_path):
    """Before: uploads ran two at a time app-wide, so two slow files (189 s each here, without a
    budget) kept another learner's one-line note waiting for minutes."""
    from gradio_client import handle_file

    bomb = tmp_path / "slow.pdf"
    bomb.write_bytes(bombs.pdf_shared_stream_bomb(40, 8.0))
    slow = client(app)
    jobs = [slow.submit([handle_file(str(bomb))], api_name="/upload") for _ in range(2)]
    started = time.monotonic()
    threading.Event().wait(0.5)  # let both join the queue first (a head start, not a condition)
    note = tmp_path / "one_line.md"
    note.write_text("# Note\n\nThe quokka checksum is Q-4411.\n", encoding="utf-8")
    log_html, *_ = client(app).predict([handle_file(str(note))], api_name="/upload")
    waited = time.monotonic() - started
    assert "✓ one_line.md" in log_html
    assert not all(job.done() for job in jobs) or waited < PARSE_WALL_S, "the note waited for the slow files"
    outcomes = [job.result(timeout=2 * PARSE_WALL_S + SLACK_S)[0] for job in jobs]
    assert all("too complex to read" in outcome for outcome in outcomes), outcomes


# -- last, since it fills the upload folder ----------------------------------------------------


def test_the_upload_folder_has_a_quota(app):
    codes = [upload_raw(app, f"q{i}.txt", b"z" * (900 * 1024)).status_code for i in range(6)]
    assert 507 in codes and codes[0] == 200, codes
    total = sum(p.stat().st_size for p in app.tmp.rglob("*") if p.is_file())
    assert total <= 3 * MB
    for path in app.tmp.rglob("q*.txt"):
        path.unlink()
