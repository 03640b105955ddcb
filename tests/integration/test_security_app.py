"""The app as `app.py` starts it (tests/launched_app.py) holds against hostile clients: per-client
limits, the files it serves, what a course token reaches, course names that are not text
(issue 20's findings).

Clients are told apart by the loopback address they connect from (127.0.0.2, .3, …: Linux
routes all of 127/8 to lo), never by a header: no proxy is trusted here, as when the app runs
without one. Each test uses its own addresses, so the per-client counters of one test do not
touch another's.
"""

from __future__ import annotations

import json
import shutil
import stat
import threading
import uuid
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from courserag.config.settings import Limits, ParseBudget, ServerLimits, Settings
from tests.browser_app import CHROMIUM, CHROMIUM_ARGS  # the browser suite's one launch recipe
from tests.conftest import PROJECT_ROOT
from tests.launched_app import launched, wait_until

pytestmark = pytest.mark.slow

MB = 1024 * 1024
UPLOADS_PER_CLIENT = 6
FEEDBACK_PER_CLIENT = 3
PARSE_WALL_S = 60.0
COURSE_TOKEN = "csc-" + uuid.uuid4().hex
OTHER_TOKEN = "ds-" + uuid.uuid4().hex
GLOBAL_TOKEN = "all-" + uuid.uuid4().hex


class MarkerHold:
    """Holds every passage embedding of a text with `marker` until `release` is set: an upload
    that stays inside its turn for as long as a test needs, whatever the machine's speed."""

    def __init__(self, marker: str):
        self.marker = marker
        self.release = threading.Event()
        self.held = 0
        self._lock = threading.Lock()

    def check(self, texts) -> None:
        if any(self.marker in text for text in texts):
            with self._lock:
                self.held += 1
            self.release.wait(300)


HOLD = MarkerHold("numbat-hold-" + uuid.uuid4().hex[:8])


@pytest.fixture(scope="module")
def app(built_sample_data, cached_embedder, tmp_path_factory):
    from courserag.courses.directory import load_course_directory
    from courserag.engine.facade import RagEngine
    from courserag.stores import LocalCourseStore
    from tests.browser_support import GatedEmbedder

    root = tmp_path_factory.mktemp("security-app")
    shutil.copytree(built_sample_data, root / "data")
    shutil.copytree(PROJECT_ROOT / "courses", root / "courses")
    shutil.copy(PROJECT_ROOT / "course_directory.yaml", root / "course_directory.yaml")
    settings = Settings(
        course_directory=root / "course_directory.yaml",
        data_dir=root / "data",
        instructor_enabled=True,
        limits=replace(Limits(), max_file_mb=1.0, max_files_per_upload=3),
        parse=ParseBudget(wall_s=PARSE_WALL_S, cpu_s=60.0),
        server=ServerLimits(
            max_request_mb=0.5, uploads_per_client=UPLOADS_PER_CLIENT, feedback_per_client=FEEDBACK_PER_CLIENT
        ),
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADIO_TEMP_DIR", str(root / "gradio-tmp"))
        engine = RagEngine(
            settings,
            load_course_directory(settings.course_directory),
            LocalCourseStore(root / "data" / "index", cached_embedder.dim),
            GatedEmbedder(cached_embedder, HOLD),
        )
        with launched(engine, settings) as running:
            running.root = root
            config = httpx.get(running.url + "config", timeout=30).json()
            running.deps = {d["api_name"]: d for d in config["dependencies"] if d.get("api_name")}
            running.like = next(d for d in config["dependencies"] if any(t[1] == "like" for t in d.get("targets", [])))
            yield running


@pytest.fixture
def tokens(monkeypatch):
    monkeypatch.setenv("INSTRUCTOR_TOKEN", GLOBAL_TOKEN)
    monkeypatch.setenv("INSTRUCTOR_TOKENS", f"csc3100={COURSE_TOKEN},ds2010={OTHER_TOKEN}")


class Peer:
    """A client connecting from one loopback address, speaking Gradio's queue protocol."""

    def __init__(self, app, address: str):
        self.app = app
        self.http = httpx.Client(base_url=app.url, timeout=120, transport=httpx.HTTPTransport(local_address=address))

    def upload(self, name: str, body: bytes, headers: dict | None = None) -> httpx.Response:
        return self.http.post(
            "gradio_api/upload", files={"files": (name, body, "application/octet-stream")}, headers=headers or {}
        )

    def call(self, dependency: dict, data: list, event_data=None, headers: dict | None = None) -> dict:
        """One event through the queue; the process_completed message. The body is sent as
        escaped JSON (ensure_ascii), so text that is not valid Unicode arrives as the red team sent it."""
        session = uuid.uuid4().hex[:11]
        trigger = dependency["targets"][0][0] if dependency.get("targets") else None
        body = json.dumps(
            {
                "data": data,
                "event_data": event_data,
                "fn_index": dependency["id"],
                "trigger_id": trigger,
                "session_hash": session,
            }
        )
        joined = self.http.post(
            "gradio_api/queue/join",
            content=body.encode("ascii"),
            headers={"content-type": "application/json", **(headers or {})},
        )
        joined.raise_for_status()
        with self.http.stream("GET", "gradio_api/queue/data", params={"session_hash": session}) as stream:
            for line in stream.iter_lines():
                if line.startswith("data:"):
                    message = json.loads(line[5:])
                    if message.get("msg") == "process_completed":
                        return message
        raise AssertionError("no process_completed message")

    def output(self, dependency: dict, data: list, **kwargs) -> list:
        message = self.call(dependency, data, **kwargs)
        assert message.get("success"), message
        return message["output"]["data"]


def file_data(path: str, name: str) -> dict:
    return {"path": path, "orig_name": name, "meta": {"_type": "gradio.FileData"}}


# -- finding 1: the guard is on ---------------------------------------------------------------------


def test_the_guard_answers_on_the_app_as_app_py_launches_it(app):
    """Before: `launch_options(settings, demo)` replaced the guard's app_kwargs with the
    course-file route: no CSP, any file type, no counts, uploads served back, huge bodies."""
    peer = Peer(app, "127.0.0.2")
    for path in ("", "config", "course-file/csc3100/syllabus.md"):
        response = peer.http.get(path)
        assert "img-src 'self' data: blob:" in response.headers.get("content-security-policy", ""), path
        assert response.headers.get("x-content-type-options") == "nosniff"
        assert response.headers.get("referrer-policy") == "same-origin"
    assert peer.upload("page.html", b"<script>alert(1)</script>").status_code == 415
    assert peer.upload("tool.exe", b"MZ\x90\x00").status_code == 415
    many = [("files", (f"n{i}.md", b"y" * (900 * 1024), "text/plain")) for i in range(5)]
    assert peer.http.post("gradio_api/upload", files=many).status_code == 413
    saved = peer.upload("private.md", b"# Private\n\nmy notes\n")
    assert saved.status_code == 200
    (path,) = saved.json()
    served = peer.http.get(f"gradio_api/file={path}")
    assert served.status_code in (403, 404) and b"my notes" not in served.content
    history = [{"role": "user", "content": "x" * 1000}] * 1000  # 1 MB, over MAX_REQUEST_MB
    body = {
        "data": ["q", history, "csc3100", "both", None, "en", []],
        "fn_index": app.deps["ask"]["id"],
        "session_hash": uuid.uuid4().hex[:11],
    }
    assert peer.http.post("gradio_api/queue/join", json=body).status_code == 413


def test_uploads_are_counted_per_client_whatever_it_says_it_is(app):
    """Before: 70 uploads from one client were all accepted; then X-Forwarded-For chose the client."""
    peer = Peer(app, "127.0.0.3")
    codes = [
        peer.upload(f"n{i}.md", b"# n\n\nx\n", {"X-Forwarded-For": f"198.51.100.{i + 1}"}).status_code
        for i in range(UPLOADS_PER_CLIENT + 1)
    ]
    assert codes == [200] * UPLOADS_PER_CLIENT + [429]
    assert Peer(app, "127.0.0.4").upload("n.md", b"# n\n\nx\n").status_code == 200  # another client is not affected


# -- finding 4: course folders only through the course-file route ------------------------------------


def test_course_folders_are_served_only_through_the_course_file_route(app):
    """Before: `gr.set_static_paths(docs)` served .html inline on the app's origin, .svg as
    images and .env files; a script in a course folder read /config."""
    docs = app.root / "courses" / "csc3100"
    (docs / "page.html").write_text("<script>fetch('/config')</script>", encoding="utf-8")
    (docs / "logo.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'><script>1</script></svg>", encoding="utf-8")
    (docs / ".env").write_text("SECRET=course-folder-secret\n", encoding="utf-8")
    peer = Peer(app, "127.0.0.5")
    for name in ("page.html", "logo.svg", ".env", "syllabus.md"):
        for url in (f"gradio_api/file={docs / name}", f"gradio_api/file={str(docs / name).replace('/', '%2F')}"):
            response = peer.http.get(url)
            assert response.status_code in (403, 404), (url, response.status_code)
            assert b"course-folder-secret" not in response.content and b"<script>" not in response.content
    assert peer.http.get("course-file/csc3100/syllabus.md").status_code == 200
    for name in ("page.html", "logo.svg", ".env"):
        assert peer.http.get(f"course-file/csc3100/{name}").status_code == 404


# -- finding 3: a token reads only its courses ---------------------------------------------------------


def test_a_course_token_reads_only_its_own_courses_gaps(app, tokens):
    """Before: the csc3100 token with course_id=null returned every course's refused questions."""
    from courserag.instructor.feedback import FeedbackLog

    log = FeedbackLog(app.settings.data_dir)
    log.log_refused("my student number is 2026-0042, can I resit the ds exam", "ds2010", "both")
    log.log_refused("is the csc3100 lab open on sundays", "csc3100", "both")
    peer = Peer(app, "127.0.0.6")
    resolve = app.deps["instructor_resolve"]
    for course in (None, "", "ds2010", "no-such-course"):  # Gradio refuses the last two itself; none may leak
        text = json.dumps(peer.call(resolve, [COURSE_TOKEN, course, [], "en"]), ensure_ascii=False)
        assert "2026-0042" not in text and "sundays" not in text, course
    own = json.dumps(peer.output(resolve, [COURSE_TOKEN, "csc3100", [], "en"]), ensure_ascii=False)
    assert "sundays" in own and "2026-0042" not in own
    unlocked = json.dumps(peer.output(app.deps["instructor_unlock"], [COURSE_TOKEN, None, "en"]), ensure_ascii=False)
    assert "2026-0042" not in unlocked  # opens on its own course
    everything = json.dumps(peer.output(resolve, [GLOBAL_TOKEN, None, [], "en"]), ensure_ascii=False)
    assert "2026-0042" not in everything  # no course named is no course, for every token


# -- finding 2 and 9: the course directory -------------------------------------------------------------


def test_a_course_name_that_is_not_text_is_refused_and_every_page_still_loads(app, tokens):
    """Before: "A\\ud800B" was written to course_directory.yaml; every page load failed after."""
    directory = app.settings.course_directory
    directory.chmod(0o644)
    before = directory.read_bytes()
    peer = Peer(app, "127.0.0.7")
    save = app.deps["instructor_save_details"]
    for name in ("A\ud800B", "CSC3100\u202eevil", "CSC\x00"):
        status, note, _ = peer.output(save, [COURSE_TOKEN, "csc3100", name, "Hashing and heaps.", "", "en"])
        assert "cannot be saved" in note, (name, note)
    assert directory.read_bytes() == before
    card, *_ = peer.output(app.deps["select_course"], ["csc3100", None, "en"])
    assert "CSC3100 Data Structures" in json.dumps(card, ensure_ascii=False)
    assert peer.http.get("").status_code == 200
    # A good save keeps the file's mode (it became 0600) and the name it had goes back.
    course = app.engine.course("csc3100")
    status, note, _ = peer.output(
        save, [COURSE_TOKEN, "csc3100", "CSC3100 Data Structures!", course.description, "", "en"]
    )
    assert "cannot" not in note and stat.S_IMODE(directory.stat().st_mode) == 0o644
    peer.output(save, [COURSE_TOKEN, "csc3100", course.name, course.description, "\n".join(course.examples), "en"])
    assert app.engine.course("csc3100").name == course.name


def test_add_files_refuses_a_file_of_another_course(app, tokens):
    """Before: a server path from ds2010's folder, given as an upload, was copied into csc3100."""
    other = app.root / "courses" / "ds2010" / "课程大纲.md"
    target = app.root / "courses" / "csc3100" / other.name
    message = Peer(app, "127.0.0.8").call(
        app.deps["instructor_add_files"], [COURSE_TOKEN, "csc3100", [file_data(str(other), other.name)], ".", "en"]
    )
    assert not target.exists(), message
    assert not message.get("success") or "only uploaded files" in json.dumps(message, ensure_ascii=False)


def test_the_target_folder_is_checked_on_the_server_and_the_trash_is_never_served(app, tokens):
    """A folder the page never offered ("../ds2010") is refused and nothing is written (by the
    folder picker's choices, and behind them by the server's own check,
    tests/unit/instructor/test_course_files.py); a removed file waits in DATA_DIR/trash, which
    no route serves (issue 21)."""
    peer = Peer(app, "127.0.0.13")
    note = peer.upload("sneaky.md", b"# Sneaky\n\nA file aimed at another course.\n").json()[0]
    courses = app.root / "courses"
    for folder in ("../ds2010", "..", "/tmp", "lectures/../../ds2010", ".hidden"):
        message = peer.call(
            app.deps["instructor_add_files"], [COURSE_TOKEN, "csc3100", [file_data(note, "sneaky.md")], folder, "en"]
        )
        said = json.dumps(message, ensure_ascii=False)  # Gradio's picker refuses it, else our check does
        assert "not in the list of choices" in said or "is not a folder of this course" in said, (folder, said)
    assert not list(courses.rglob("sneaky.md"))

    announcements = courses / "csc3100" / "announcements.txt"
    text = announcements.read_bytes()
    from courserag.instructor.feedback import FeedbackLog
    from courserag.instructor.tools import InstructorTools

    tools = InstructorTools(app.engine, FeedbackLog(app.settings.data_dir), app.settings)
    tools.remove_file("csc3100", "announcements.txt")  # the tab's pickers take only what they offered
    trash = app.root / "data" / "trash" / "csc3100"
    (held,) = list(trash.rglob("announcements.txt"))
    assert not announcements.exists() and held.read_bytes() == text
    for url in (
        f"gradio_api/file={held}",
        f"gradio_api/file={str(held).replace('/', '%2F')}",
        f"course-file/csc3100/..%2F..%2Fdata%2Ftrash%2Fcsc3100%2F{held.parent.name}%2Fannouncements.txt",
        f"course-file/csc3100/{held.parent.name}/announcements.txt",
    ):
        response = peer.http.get(url)
        assert response.status_code in (403, 404), (url, response.status_code)
    (entry,) = [p.stem for p in trash.glob("*.json")]
    tools.restore_file("csc3100", entry)
    assert announcements.read_bytes() == text and not list(trash.glob("*.json"))


def test_batch_lines_cannot_name_another_course(app, tokens):
    """Before: a batch line {"course": "ds2010"} ran with the csc3100 token."""
    lines = '{"question": "迟交作业怎么扣分？", "course": "ds2010"}\nWhat is the late policy for homework?'
    status, _, table = Peer(app, "127.0.0.9").output(
        app.deps["instructor_batch"], [COURSE_TOKEN, "csc3100", lines, "en"]
    )
    rows = table["data"]
    assert rows[0][2] == "error" and "csc3100 only" in rows[0][3]
    assert rows[1][2].startswith("answered")


# -- finding 6: throttles count the real client ------------------------------------------------------


def test_a_forged_forwarded_for_neither_escapes_nor_aims_the_token_throttle(app, tokens):
    """Before: rotating X-Forwarded-For gave 200 of 200 guesses, and 20 wrong tokens "from"
    127.0.0.1 locked the real local instructor out for ten minutes."""
    from courserag.instructor.tools import THROTTLE

    unlock = app.deps["instructor_unlock"]
    guesser, instructor = Peer(app, "127.0.0.10"), Peer(app, "127.0.0.1")
    try:
        for n in range(THROTTLE.max_failures):
            status, *_ = guesser.output(
                unlock, [f"guess-{n}", "csc3100", "en"], headers={"X-Forwarded-For": f"127.0.0.1, 198.51.{n}.1"}
            )
            assert status.startswith("🔒"), status
        status, *_ = guesser.output(unlock, [GLOBAL_TOKEN, "csc3100", "en"], headers={"X-Forwarded-For": "192.0.2.1"})
        assert "Too many wrong tokens" in status  # the guesser is throttled, whatever it claims
        status, *_ = instructor.output(unlock, [GLOBAL_TOKEN, "csc3100", "en"])
        assert "Too many" not in status and not status.startswith("🔒")  # the instructor is not
    finally:
        THROTTLE._failures.pop("127.0.0.10", None)


def test_feedback_is_rate_limited_per_client(app):
    """Before: one client wrote 8,582 feedback records in 330 s."""
    like = {"index": [1, 0], "value": "answer", "liked": True}
    flooder = Peer(app, "127.0.0.11")
    notes = [flooder.output(app.like, [[], "en"], event_data=like)[3] for _ in range(FEEDBACK_PER_CLIENT + 1)]
    assert not any("Too much feedback" in str(n) for n in notes[:-1]) and "Too much feedback" in str(notes[-1])
    comment = flooder.output(app.deps.get("send_comment") or _comment_dep(app), ["spam", 1, [], "en"])
    assert "Too much feedback" in str(comment[3])
    assert "Too much feedback" not in str(Peer(app, "127.0.0.12").output(app.like, [[], "en"], event_data=like)[3])


def _comment_dep(app) -> dict:
    config = httpx.get(app.url + "config", timeout=30).json()
    ids = {c["id"]: c for c in config["components"]}
    return next(
        d
        for d in config["dependencies"]
        if any(ids.get(t[0], {}).get("props", {}).get("elem_id") == "cr-comment-send" for t in d.get("targets", []))
        or d.get("api_name") == "send_comment"
    )


# -- finding 5: upload turns per client ---------------------------------------------------------------


def test_sessions_of_one_client_do_not_keep_another_clients_note_waiting(app):
    """Before: eight sessions of one client each uploading a 620 KB file kept another learner's
    2-line note waiting 306 s: each session took a turn before it. Here the first client's files
    are held inside their turn (their embedding waits for HOLD), so whether the note is read
    depends on the turns alone, not on how fast anything runs."""
    attacker, learner = Peer(app, "127.0.0.13"), Peer(app, "127.0.0.14")
    paths = [
        attacker.upload(f"held{n}.md", f"# Held\n\n{HOLD.marker} file {n}.\n".encode()).json()[0] for n in range(3)
    ]
    threads = [
        threading.Thread(
            target=Peer(app, "127.0.0.13").call,  # one connection pool per thread
            args=(app.deps["upload"], [[file_data(p, Path(p).name)], None, "en"]),
        )
        for p in paths
    ]
    note = learner.upload("one_line.md", b"# Note\n\nThe quokka checksum is Q-4411.\n").json()[0]
    result: list = []
    victim = threading.Thread(
        target=lambda: result.append(learner.output(app.deps["upload"], [[file_data(note, "one_line.md")], None, "en"]))
    )
    gate = app.engine.upload_gate
    try:
        for thread in threads:
            thread.start()
        assert wait_until(lambda: HOLD.held >= 1 and len(gate._running) + len(gate._waiting) == 3, timeout=120)
        victim.start()
        victim.join(120)
        assert result, "the note waited for the other client's files"
        assert "✓ one_line.md" in result[0][0]
        assert HOLD.held == 1  # that client held one of the two workers, never both
    finally:
        HOLD.release.set()
        for thread in [*threads, victim]:
            thread.join(120)


# -- in a real browser: where findings 2 and 4 were visible in a page ---------------------------------


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():  # pragma: no cover - `make test` installs it first
        pytest.skip(f"{CHROMIUM} is missing (run scripts/ensure_chromium.sh)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def test_in_a_browser_a_page_in_a_course_folder_does_not_run_on_the_apps_origin(app, browser):
    """Before: a script in a course folder's HTML file ran on the app's origin and read /config."""
    page_file = app.root / "courses" / "csc3100" / "planted.html"
    page_file.write_text(
        "<html><body><script>document.title = 'ran';"
        "fetch('/config').then(r => r.text()).then(t => { document.body.dataset.config = t.length; });"
        "</script></body></html>",
        encoding="utf-8",
    )
    context = browser.new_context()
    try:
        page = context.new_page()
        response = page.goto(app.url + f"gradio_api/file={page_file}")
        assert response.status in (403, 404)
        page.wait_for_load_state("load")
        assert page.title() != "ran" and page.evaluate("document.body && document.body.dataset.config") is None
    finally:
        context.close()


def test_in_a_browser_the_page_still_loads_after_a_course_name_that_is_not_text(app, browser, tokens):
    """Before: after "A\\ud800B" was saved, every visitor's page load failed, for every course."""
    Peer(app, "127.0.0.15").output(
        app.deps["instructor_save_details"], [COURSE_TOKEN, "csc3100", "A\ud800B", "Hashing and heaps.", "", "en"]
    )
    context = browser.new_context(locale="en-US")
    context.set_default_timeout(60_000)
    try:
        page = context.new_page()
        page.goto(app.url)
        page.wait_for_function(
            "/CSC3100 Data Structures/.test(document.querySelector('#cr-course-card')?.innerText || '')"
        )
    finally:
        context.close()
