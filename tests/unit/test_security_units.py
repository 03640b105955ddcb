"""The pure parts that keep hostile clients and files out: who a client is, the per-client
counters and upload turns, the text a course directory may hold, the last good directory,
feedback reads, a shared PDF stream read once, and where a build writes (issue 20's findings).
The same findings through the app as `app.py` starts it: tests/integration/test_security_app.py."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from courserag.courses.directory import last_good_path, load_course_directory, load_or_last_good
from courserag.courses.edit import CourseEdit, update_course, validated
from courserag.courses.text import text_problem
from courserag.errors import ConfigError, CourseRagError
from courserag.instructor.feedback import FeedbackLog
from courserag.retrieval.session_pool import UploadGate
from courserag.ui.clients import ClientPolicy, PerClientLimit, client_of, request_client, scope_client
from tests.conftest import PROJECT_ROOT, SAMPLE_DIRECTORY
from tests.launched_app import wait_until

PROXY = ClientPolicy.of(["10.0.0.0/8", "fc00::/7"])


# -- finding 6: a client cannot choose its address ---------------------------------------------


@pytest.mark.parametrize(
    "peer, header, policy, expected",
    [
        ("203.0.113.5", None, ClientPolicy(), "203.0.113.5"),
        ("203.0.113.5", "127.0.0.1", ClientPolicy(), "203.0.113.5"),  # no proxy configured: never believed
        ("127.0.0.1", "198.51.100.1", ClientPolicy(), "127.0.0.1"),
        ("203.0.113.5", "127.0.0.1", PROXY, "203.0.113.5"),  # not from the proxy: not believed
        ("10.1.2.3", "198.51.100.7", PROXY, "198.51.100.7"),  # the proxy names the client
        ("10.1.2.3", "6.6.6.6, 198.51.100.7", PROXY, "198.51.100.7"),  # what the client wrote is left of it
        ("10.1.2.3", "198.51.100.7, 10.9.9.9", PROXY, "198.51.100.7"),  # two trusted hops
        ("10.1.2.3", "10.9.9.9", PROXY, "10.1.2.3"),  # only proxies: the peer
        ("10.1.2.3", "198.51.100.7, ", PROXY, "10.1.2.3"),  # an empty hop cannot be read past
        ("fc00::1", "2001:db8::9", PROXY, "2001:db8::9"),
        (None, None, ClientPolicy(), "?"),
    ],
)
def test_the_client_is_the_peer_unless_a_trusted_proxy_names_it(peer, header, policy, expected):
    assert client_of(peer, header, policy) == expected


def test_asgi_scopes_and_gradio_requests_name_the_same_client():
    scope = {"client": ("10.1.2.3", 5555), "headers": [(b"x-forwarded-for", b"6.6.6.6, 198.51.100.7")]}
    request = SimpleNamespace(
        client=SimpleNamespace(host="10.1.2.3"), headers={"x-forwarded-for": "6.6.6.6, 198.51.100.7"}
    )
    assert scope_client(scope, PROXY) == request_client(request, PROXY) == "198.51.100.7"
    assert scope_client(scope, ClientPolicy()) == request_client(request, ClientPolicy()) == "10.1.2.3"
    assert request_client(None, PROXY) == "?"


def test_a_bad_trusted_proxy_is_a_config_error_naming_it():
    from courserag.config.settings import Settings

    with pytest.raises(ConfigError, match="not-an-ip"):
        ClientPolicy.of(["not-an-ip"])
    on_space = Settings.from_env({"SPACE_ID": "u/s", "DATA_DIR": "/tmp/x"})
    assert ClientPolicy.from_settings(on_space).is_trusted("10.20.30.40")
    assert not ClientPolicy.from_settings(Settings.from_env({"DATA_DIR": "/tmp/x"})).is_trusted("10.20.30.40")
    custom = Settings.from_env({"TRUSTED_PROXIES": "192.0.2.1", "CLIENT_IP_HEADER": "X-Real-IP", "DATA_DIR": "/tmp/x"})
    assert ClientPolicy.from_settings(custom) == ClientPolicy.of(["192.0.2.1"], "x-real-ip")


def test_a_per_client_limit_counts_each_client_in_its_window():
    now = [0.0]
    limit = PerClientLimit(3, window_s=60, clock=lambda: now[0])
    assert [limit.allow("a") for _ in range(4)] == [True, True, True, False]
    assert limit.allow("b")  # another client is not affected
    now[0] = 61.0
    assert limit.allow("a")  # aged out


# -- finding 5: upload turns per client as well as per session ---------------------------------


def test_one_client_with_many_sessions_does_not_hold_every_upload_worker():
    """Before: eight sessions of one client each took a turn before another client's note
    (it waited 306 s); now that client holds one of the two workers, and the note takes the other."""
    gate = UploadGate(workers=2)
    release, first_in, victim_in = threading.Event(), threading.Event(), threading.Event()
    order: list[str] = []

    def upload(session: str, client: str) -> None:
        with gate.turn(session, client):
            order.append(session)
            (victim_in if session == "victim" else first_in).set()
            if session != "victim":
                release.wait(60)

    attackers = [threading.Thread(target=upload, args=(f"attacker-{n}", "198.51.100.66")) for n in range(4)]
    attackers[0].start()
    assert first_in.wait(30)
    for thread in attackers[1:]:
        thread.start()
    assert wait_until(lambda: len(gate._waiting) == 3)  # the other three sessions queue behind the first
    victim = threading.Thread(target=upload, args=("victim", "203.0.113.10"))
    victim.start()
    try:
        assert victim_in.wait(10), "the other client's note waited for the first client's files"
        assert order == ["attacker-0", "victim"]
    finally:
        release.set()
        for thread in [*attackers, victim]:
            thread.join(30)
    assert sorted(order) == sorted([f"attacker-{n}" for n in range(4)] + ["victim"])


def test_without_a_client_each_session_is_its_own_client():
    gate = UploadGate(workers=2)
    inside = threading.Barrier(2, timeout=30)

    def upload(session: str) -> None:
        with gate.turn(session):
            inside.wait()  # both run at once: two sessions, two clients

    threads = [threading.Thread(target=upload, args=(s,)) for s in ("s1", "s2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not inside.broken


# -- finding 2 and 9: text of the course directory ---------------------------------------------


@pytest.mark.parametrize(
    "value, allow_newlines, fragment",
    [
        ("CSC3100 Data Structures", False, None),
        ("数据科学导论", False, None),
        ("line one\nline two", True, None),
        ("A\ud800B", False, "lone surrogate (U+D800 at position 2)"),
        ("exe.txt\u202e", False, "bidirectional control character (U+202E"),
        ("a\u2066b", False, "bidirectional"),
        ("a\u200fb", False, "bidirectional"),
        ("a\x00b", False, "control character (U+0000"),
        ("a\x1bb", True, "control character (U+001B"),
        ("line one\nline two", False, "control character (U+000A"),
        ("a\ufffeb", False, "noncharacter"),
        ("x" * 11, False, "is 11 characters long (at most 10)"),
    ],
)
def test_text_a_browser_and_yaml_cannot_carry_is_named(value, allow_newlines, fragment):
    problem = text_problem(value, 10 if fragment and "long" in fragment else 1000, allow_newlines)
    assert problem is None if fragment is None else fragment in problem


@pytest.mark.parametrize(
    "name, description, examples",
    [
        ("A\ud800B", "fine", ""),
        ("CSC3100\u202e", "fine", ""),
        ("CSC3100", "bad\x07bell", ""),
        ("CSC3100", "fine", "What is\u202e this?"),
    ],
)
def test_an_edit_with_text_that_is_not_text_is_refused(name, description, examples):
    with pytest.raises(CourseRagError) as error:
        validated(name, description, examples)
    assert error.value.code == "course_text_invalid"


@pytest.fixture
def directory_copy(tmp_path) -> Path:
    path = tmp_path / "course_directory.yaml"
    path.write_text(
        SAMPLE_DIRECTORY.read_text(encoding="utf-8").replace("docs: courses/", f"docs: {PROJECT_ROOT}/courses/"),
        encoding="utf-8",
    )
    return path


def test_a_file_with_a_lone_surrogate_in_a_name_does_not_load(directory_copy):
    """Before: such a file loaded, and every page load then failed (nh3 cannot encode it)."""
    text = directory_copy.read_text(encoding="utf-8").replace('name: "CSC3100 Data Structures"', 'name: "A\\ud800B"')
    directory_copy.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match="csc3100.*lone surrogate"):
        load_course_directory(directory_copy)


def test_saving_keeps_the_files_mode(directory_copy):
    """Before: a save turned 0644 into 0600 (mkstemp's mode)."""
    os.chmod(directory_copy, 0o644)
    update_course(directory_copy, "csc3100", CourseEdit("CSC3100 Data Structures!", "Hashing and heaps."))
    assert stat.S_IMODE(directory_copy.stat().st_mode) == 0o644
    assert load_course_directory(directory_copy).get("csc3100").name == "CSC3100 Data Structures!"


def test_a_broken_directory_falls_back_to_the_last_good_copy_with_a_warning(directory_copy, tmp_path, caplog):
    data = tmp_path / "data"
    good = load_or_last_good(directory_copy, data)
    assert last_good_path(data).is_file()
    directory_copy.write_text(
        directory_copy.read_text(encoding="utf-8").replace("CSC3100 Data Structures", "A\\ud800B"), encoding="utf-8"
    )
    with caplog.at_level("WARNING"):
        again = load_or_last_good(directory_copy, data)
    assert again == good
    assert "cannot be loaded" in caplog.text and "last good copy" in caplog.text
    assert again.get("csc3100").docs == good.get("csc3100").docs  # docs still relative to the real file
    with pytest.raises(ConfigError):
        load_or_last_good(directory_copy, tmp_path / "no-copy-yet")  # nothing to fall back on: the error stands


def test_the_engine_starts_from_the_last_good_directory(directory_copy, tmp_path, caplog):
    """Before: `app.py` no longer started once a bad name was saved."""
    from courserag.config.settings import Settings
    from courserag.engine.facade import RagEngine

    settings = Settings(course_directory=directory_copy, data_dir=tmp_path / "data")
    assert [c.id for c in RagEngine.from_settings(settings).courses] == ["csc3100", "ds2010"]
    directory_copy.write_text(
        directory_copy.read_text(encoding="utf-8").replace("DS2010", "\u202eDS2010"), encoding="utf-8"
    )
    with caplog.at_level("WARNING"):
        engine = RagEngine.from_settings(settings)
    assert engine.course("ds2010").name == "DS2010 数据科学导论" and "last good copy" in caplog.text


# -- finding 6: the instructor view reads every record still held ----------------------------------


def test_an_old_comment_is_still_read_after_a_flood(tmp_path):
    """Before: readers took the last 8 MB only; 8,582 flood records hid a genuine 👍 and its comment."""
    log = FeedbackLog(tmp_path)
    genuine = log.record_vote(
        question="Is the final open book?", answer="Yes [1].", citations=[], course_id="csc3100", vote="up"
    )
    log.add_comment(genuine, "this answer saved my revision")
    flood = (json.dumps({"id": "x", "course": "csc3100", "vote": "down", "question": "spam " * 190}) + "\n").encode()
    with log.feedback_path.open("ab") as handle:
        handle.write(flood * (9 * 1024 * 1024 // len(flood) + 1))  # 9 MB after it, under the 20 MB rotation
    comments = [r.get("comment") for r in log.feedback("csc3100") if r.get("id") == genuine["id"]]
    assert comments == ["this answer saved my revision"]


# -- finding 7: a stream shared by many pages is interpreted once -----------------------------------


def test_pages_sharing_one_stream_are_interpreted_once(monkeypatch):
    """Before: 20 pages sharing one heavy stream re-interpreted it 20 times (over 30 s)."""
    from pypdf import PageObject

    from courserag.config.settings import Limits
    from courserag.ingest.parsers import parse_bytes
    from docgen import bombs

    calls = []
    original = PageObject.extract_text
    monkeypatch.setattr(PageObject, "extract_text", lambda self, *a, **k: calls.append(1) or original(self, *a, **k))
    parsed = parse_bytes(bombs.pdf_shared_stream_bomb(20, 0.05), "shared.pdf", Limits())
    assert len(parsed.sections) == 20 and len(calls) == 1
    assert {s.text for s in parsed.sections} == {"Shared page text"}


def test_the_red_team_pdf_is_refused_by_its_structure():
    """20 pages sharing a 3.2 MB stream (under the old 64 MB count) are over the new 8 MB one."""
    from courserag.config.settings import Limits
    from courserag.errors import TooComplexError
    from courserag.ingest.parsers import parse_bytes
    from docgen import bombs

    with pytest.raises(TooComplexError) as error:
        parse_bytes(bombs.pdf_shared_stream_bomb(20, 3.2), "bomb.pdf", Limits())
    assert "complex_pdf_content" in repr(error.value.notice)


def test_the_course_pdfs_are_far_inside_the_content_limit():
    from courserag.config.settings import Limits
    from courserag.ingest.parsers import parse_file

    for path in sorted((PROJECT_ROOT / "courses").rglob("*.pdf")):
        assert parse_file(path, path.name, Limits(max_pdf_content_mb=0.1)).sections  # 80× under the default


# -- finding 8: a build writes to the configured store or fails -------------------------------------


def test_a_build_reads_and_writes_the_primary_store_only():
    from courserag.stores import FallbackCourseStore
    from courserag.stores.fallback import for_writes

    primary, fallback = SimpleNamespace(name="weaviate"), SimpleNamespace(name="local")
    assert for_writes(FallbackCourseStore(primary, fallback)) is primary
    assert for_writes(fallback) is fallback
