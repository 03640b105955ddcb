"""Gradio's own routes serve nothing they should not, against the app as `app.py` starts it:
the deep-link and monitoring routes (off), every file route (none serves an upload), the
upload route's file count and folder sweep, and the course-file viewer's read of a large file
(issue 40's findings).

The app and its clients are test_security_app.py's (`app`, `Peer`: one loopback address per
client); this module gets an app of its own, so its counts touch no other test's.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import threading
import time
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest

from courserag.ui import server
from courserag.ui.files import MAX_VIEW_BYTES
from tests.integration.test_security_app import Peer, app  # noqa: F401 (a fixture: an app of this module's own)
from tests.launched_app import wait_until

pytestmark = pytest.mark.slow

MB = 1024 * 1024
HELD_S = 30.0  # how long a held sweep waits when nothing releases it (the code before the fix)


def upload_folder(running) -> Path:
    return Path(running.demo.app.uploaded_file_dir)


def files_in(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file()}


def route_paths(routes, prefix: str = "") -> set[str]:
    """Every path the app routes, also those of the routers FastAPI includes lazily (Gradio's
    `/gradio_api/...` router is one: `app.routes` lists it as one entry without a path)."""
    paths = set()
    for route in routes:
        if getattr(route, "path", None) is not None:
            paths.add(prefix + route.path)
        included = getattr(route, "original_router", None)
        if included is not None:
            paths |= route_paths(included.routes, prefix + route.include_context.prefix)
    return paths


def run_in_session(peer: Peer, dependency: dict, data: list, session: str) -> dict:
    """One event through the queue under `session`, so that Gradio keeps state for it."""
    trigger = dependency["targets"][0][0] if dependency.get("targets") else None
    body = {"data": data, "event_data": None, "fn_index": dependency["id"], "trigger_id": trigger}
    peer.http.post("gradio_api/queue/join", json={**body, "session_hash": session}).raise_for_status()
    with peer.http.stream("GET", "gradio_api/queue/data", params={"session_hash": session}) as stream:
        for line in stream.iter_lines():
            if line.startswith("data:") and json.loads(line[5:]).get("msg") == "process_completed":
                return json.loads(line[5:])
    raise AssertionError("no process_completed message")


# -- finding 3: deep links ----------------------------------------------------------------------------


def test_deep_links_are_off_and_write_nothing(app):  # noqa: F811 (the fixture imported above)
    """Before: each `GET /gradio_api/deep_link?session_hash=<own>` saved the session's whole
    state under the upload folder (53.6 MB in 1.7 s), until other clients' uploads got 507."""
    config = Peer(app, "127.0.0.40").http.get("config").json()
    assert not [c for c in config["components"] if "deep" in c.get("type", "")]  # the page has no deep-link button
    peer = Peer(app, "127.0.0.40")
    session = uuid.uuid4().hex[:11]
    assert run_in_session(peer, app.deps["list_uploads"], [None], session)["success"]
    assert session in app.demo.app.state_holder  # a session Gradio keeps state for
    for _ in range(3):
        response = peer.http.get("gradio_api/deep_link", params={"session_hash": session})
        assert response.status_code == 404, response.text
    assert not (upload_folder(app) / "deep_links").exists()


# -- finding 5: every file route ----------------------------------------------------------------------


def test_no_file_route_serves_an_upload(app):  # noqa: F811 (the fixture imported above)
    """Before: `/gradio_api/file/<absolute path>`, the older spelling of `/gradio_api/file=`,
    served the uploader's own upload with 200. Every route of the app's FastAPI app whose path
    names a file is tried with the upload's path, absolute and relative, plain and escaped."""
    peer = Peer(app, "127.0.0.41")
    secret = uuid.uuid4().hex.encode()
    saved = peer.upload("private.md", b"# Private\n\nmy notes " + secret + b"\n")
    assert saved.status_code == 200
    (path,) = saved.json()
    routes = sorted(path for path in route_paths(app.demo.app.routes) if "file" in path.lower())
    assert {"/gradio_api/file={path_or_url:path}", "/gradio_api/file/{path:path}"} <= set(routes), routes
    relative = os.path.relpath(path)  # Gradio reads a relative path from the working directory
    targets = (path, path.replace("/", "%2F"), relative.replace("/", "%2F"))
    for route in routes:
        for target in targets:
            url = re.sub(r"\{[^}]*\}", lambda _: target, route).lstrip("/")
            for method in ("GET", "HEAD"):
                response = peer.http.request(method, url)
                assert response.status_code >= 400, (method, url, response.status_code)
                assert secret not in response.content, (method, url)
    assert Path(path).is_file()  # it is there: only the routes refuse it


# -- finding 6: files per upload request, the sweep off the request -----------------------------------


def test_one_upload_request_stores_no_more_than_its_file_count(app):  # noqa: F811 (the fixture imported above)
    """Before: one request stored up to 999 files (`MAX_FILES_PER_UPLOAD` is 3 here); 20,000
    files from one client then slowed every upload's sweep. Now the request is refused before
    Gradio keeps any of its files."""
    peer = Peer(app, "127.0.0.42")
    limit = app.settings.limits.max_files_per_upload
    before = files_in(upload_folder(app))
    many = [("files", (f"many{i}.md", f"# note {i}\n".encode(), "text/plain")) for i in range(30)]
    # and one file too many, each large enough that Gradio has begun the first ones when it comes
    over = [
        ("files", (f"over{i}.md", b"# over %d\n" % i + b"o" * (300 * 1024), "text/plain")) for i in range(limit + 1)
    ]
    for files in (many, over):
        response = peer.http.post("gradio_api/upload", files=files)
        assert response.status_code == 413, response.text
        assert not files_in(upload_folder(app)) - before  # nothing kept, not even the first `limit`
    just = [("files", (f"just{i}.md", f"# just {i}\n".encode(), "text/plain")) for i in range(limit)]
    response = peer.http.post("gradio_api/upload", files=just)
    assert response.status_code == 200 and len(response.json()) == limit


def test_the_upload_folders_sweep_never_holds_up_an_upload(app, monkeypatch):  # noqa: F811 (the fixture imported above)
    """Before: the sweep walked the upload folder inside the upload request, on the event loop
    (a 1-byte upload took 1 s with 20,000 files there, and every other request waited with
    it). Here the sweep is held until the test releases it, and every upload finds one due:
    the uploads are answered meanwhile, and only one sweep runs."""
    real_sweep, release, finished, entered = server._sweep, threading.Event(), threading.Event(), []

    def held_sweep(folder, ttl_s):
        entered.append(folder)
        release.wait(HELD_S)
        try:
            return real_sweep(folder, ttl_s)
        finally:
            finished.set()

    steps = itertools.count(1)
    clock = SimpleNamespace(monotonic=lambda: time.monotonic() + 10 * next(steps), time=time.time)
    monkeypatch.setattr(server, "_sweep", held_sweep)
    monkeypatch.setattr(server, "time", clock)  # 10 s pass between any two looks: a sweep is always due
    peer = Peer(app, "127.0.0.43")
    try:
        assert peer.upload("swept0.md", b"# s\n\n0\n").status_code == 200
        assert not finished.is_set()  # answered while the sweep was still held
        assert wait_until(lambda: entered)
        assert [peer.upload(f"swept{i}.md", b"# s\n\n%d\n" % i).status_code for i in (1, 2)] == [200, 200]
        assert len(entered) == 1  # one sweep at a time
    finally:
        release.set()
    assert finished.wait(60)


# -- finding 9: the monitoring pages ------------------------------------------------------------------


def test_the_monitoring_pages_are_not_served(app):  # noqa: F811 (the fixture imported above)
    """Before: `/monitoring/summary` listed every endpoint, the instructor's included, with its
    request count and timings, to anyone."""
    peer = Peer(app, "127.0.0.44")
    key = app.demo.app.analytics_key
    for path in ("monitoring", "monitoring/", "monitoring/summary", f"monitoring/{key}", f"monitoring/{key}/dashboard"):
        response = peer.http.get(path)
        assert response.status_code == 404, (path, response.status_code)
        assert b"instructor_" not in response.content


# -- finding 10: the course-file viewer reads no more than it shows -----------------------------------


def test_a_large_course_file_is_read_only_as_far_as_it_is_shown(app):  # noqa: F811 (the fixture imported above)
    """Before: viewing a text course file read and decoded it whole, whatever its size (20
    views of a 45 MB file: 7.3 s of CPU, +850 MB) and sent it all. Now the first
    `MAX_VIEW_BYTES` are shown, with a line saying how much of how much."""
    big = app.root / "courses" / "csc3100" / "big-notes.txt"
    line = b"".join((b"line %07d" % n).ljust(31, b".") + b"\n" for n in range(32_768))  # 1 MB
    with big.open("wb") as handle:
        for _ in range(45):
            handle.write(line)
    peer = Peer(app, "127.0.0.45")
    try:
        read_before = _bytes_read()
        response = peer.http.get("course-file/csc3100/big-notes.txt")
        read = _bytes_read() - read_before
    finally:
        big.unlink()
    assert response.status_code == 200
    assert len(response.content) <= MAX_VIEW_BYTES + 1024
    body = response.text
    assert body.startswith("line 0000000...")
    assert "This file is 45.0 MB: only its first 4.0 MB are shown here." in body[-200:]
    assert re.fullmatch(r"line \d{7}\.+", body.splitlines()[-3])  # cut at a line end
    if read is not None:  # this process read the part shown and received it once: far from 45 MB
        assert read < 3 * MAX_VIEW_BYTES, read


def _bytes_read() -> int | None:
    """Bytes this process has read through read() calls (files and sockets), where Linux says."""
    try:
        return int(re.search(r"rchar: (\d+)", Path("/proc/self/io").read_text())[1])
    except (OSError, TypeError):
        return None
