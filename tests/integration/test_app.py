"""The real app (`python app.py`) on a free port, driven through gradio_client and HTTP.

One app process serves the module: DATA_DIR is a copy of the built sample data with the
ds2010 index removed (the app must still start and say how to build it), and
INSTRUCTOR_TOKEN is set so the instructor lock can be checked from the outside.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest

from tests.app_helpers import dependencies, free_port, queue_call

PROJECT_ROOT = Path(__file__).resolve().parents[2]
TOKEN = "instr-" + uuid.uuid4().hex
LATE_POLICY = "What is the late policy for homework?"


def wait_for_http(url: str, proc: subprocess.Popen | None, log_path: Path | None, timeout: float = 240.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            log = log_path.read_text(errors="replace") if log_path else ""
            raise AssertionError(f"the app exited with {proc.returncode}:\n{log[-4000:]}")
        try:
            if httpx.get(url + "config", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"the app did not answer on {url} within {timeout:.0f} s")


@pytest.fixture(scope="module")
def app_data(built_sample_data, tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("app-data") / "data"
    shutil.copytree(built_sample_data, data)
    shutil.rmtree(data / "index" / "ds2010")  # a course whose index was never built
    return data


@pytest.fixture(scope="module")
def app_url(app_data, tmp_path_factory):
    port = free_port()
    log_path = tmp_path_factory.mktemp("app-log") / "app.log"
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"WEAVIATE_URL", "LLM_BASE_URL", "LLM_API_KEY", "COURSE_DIRECTORY", "SPACE_ID"}
    }
    env.update(
        DATA_DIR=str(app_data),
        PORT=str(port),
        HOST="127.0.0.1",
        INSTRUCTOR_TOKEN=TOKEN,
        GRADIO_ANALYTICS_ENABLED="False",
        HF_HUB_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
    )
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "app.py"], cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_for_http(url, proc, log_path)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert TOKEN not in log_path.read_text(errors="replace"), "the instructor token was written to the log"


def client_for(url):
    from gradio_client import Client

    return Client(url, verbose=False)


def ask(client, question, course="csc3100", scope="both"):
    """/ask returns (chat messages, the question box (cleared while streaming), the answer JSON)."""
    return client.predict(question, [], course, scope, api_name="/ask")


def message_text(message) -> str:
    content = message["content"]
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


# -- learner path --------------------------------------------------------------------------


def test_ask_through_gradio_client_returns_a_cited_answer(app_url):
    client = client_for(app_url)
    chat, _, payload = ask(client, LATE_POLICY)
    assert payload["refused"] is False and payload["citations"], payload
    first = payload["citations"][0]
    assert first["origin"] == "course" and first["course_id"] == "csc3100"
    assert (PROJECT_ROOT / "courses" / "csc3100" / first["source"]).is_file()
    assert any("late" in c["text"].lower() for c in payload["citations"])
    assert [m["role"] for m in chat] == ["user", "assistant"]
    shown = message_text(chat[-1])
    assert "[1]" in shown and 'class="cr-sources"' in shown and "course material" in shown
    assert f">{first['source'].split('/')[-1]}<" in shown or first["source"] in shown


def test_uploads_through_the_api_stay_in_their_session(app_url, tmp_path):
    owner, stranger = client_for(app_url), client_for(app_url)
    from gradio_client import handle_file

    note = tmp_path / "capybara_notes.md"
    note.write_text(
        "# Capybara hashing\n\nThe capybara table resizes when it holds 37 keys per slot.\n", encoding="utf-8"
    )
    log_html, notes_html, choices, cleared = owner.predict([handle_file(str(note))], api_name="/upload")
    assert "✓ capybara_notes.md" in log_html and "capybara_notes.md" in notes_html and cleared is None
    assert [f["name"] for f in owner.predict(api_name="/list_uploads")] == ["capybara_notes.md"]

    _, _, mine = ask(owner, "When does the capybara table resize?", scope="notes")
    assert mine["refused"] is False
    assert {c["origin"] for c in mine["citations"]} == {"upload"} and mine["citations"][0][
        "source"
    ] == "capybara_notes.md"

    assert stranger.predict(api_name="/list_uploads") == []
    _, _, theirs = ask(stranger, "When does the capybara table resize?", scope="both")
    assert all(c["origin"] == "course" for c in theirs["citations"])
    assert "37 keys" not in json.dumps(theirs)

    log_html, notes_html, _ = owner.predict(["capybara_notes.md"], api_name="/remove_upload")
    assert "capybara_notes.md" in log_html and "capybara_notes.md" not in notes_html
    _, _, after = ask(owner, "When does the capybara table resize?", scope="notes")
    assert after["refused"] is True and after["citations"] == []


def test_the_app_starts_without_a_course_index_and_says_how_to_build_it(app_url):
    client = client_for(app_url)
    card, status, *examples = client.predict("ds2010", api_name="/select_course")
    assert "build_weaviate_index.py --course ds2010" in card
    assert "DS2010" in status
    _, _, payload = ask(client, "迟交作业怎么扣分？", course="ds2010", scope="course")
    assert payload["refused"] is True and payload["citations"] == []
    # the other course is unaffected
    card, _, *_ = client.predict("csc3100", api_name="/select_course")
    assert "passages indexed" in card and "build_weaviate_index" not in card


def test_bad_requests_get_a_message_not_a_crash(app_url):
    from gradio_client.exceptions import AppError

    client = client_for(app_url)
    with pytest.raises(AppError, match="not in the list of choices"):
        ask(client, "What is the late policy?", course="no-such-course")
    chat, _, payload = ask(client, "   ")
    assert chat == [] and payload is None
    _, _, payload = ask(client, LATE_POLICY)  # the session still works
    assert payload["citations"]


# -- course files are served, nothing else ---------------------------------------------


def test_only_course_files_are_served(app_url, app_data):
    """Course files open through the course-file route only, never Gradio's file route
    (issue 20, finding 4: that route served a course folder's HTML inline)."""
    from urllib.parse import quote

    pdf = PROJECT_ROOT / "courses" / "csc3100" / "lectures" / "week03_hashing.pdf"
    assert httpx.get(app_url + "gradio_api/file=" + str(pdf)).status_code in (403, 404)
    ok = httpx.get(app_url + "course-file/csc3100/lectures/week03_hashing.pdf")
    assert ok.status_code == 200 and ok.content[:4] == b"%PDF"
    assert httpx.get(app_url + "course-file/ds2010/" + quote("课程大纲.md")).status_code == 200
    (app_data / "feedback.jsonl").write_text("{}\n", encoding="utf-8")
    for forbidden in (
        app_data / "feedback.jsonl",
        PROJECT_ROOT / "app.py",
        PROJECT_ROOT / "course_directory.yaml",
        Path("/etc/passwd"),
        PROJECT_ROOT / "courses" / "csc3100" / ".." / ".." / "app.py",
    ):
        response = httpx.get(app_url + "gradio_api/file=" + str(forbidden))
        assert response.status_code in (403, 404), (forbidden, response.status_code)


# -- the instructor lock, seen from outside -----------------------------------------------


def test_instructor_handlers_are_not_in_the_public_api(app_url):
    client = client_for(app_url)
    names = set(client.view_api(print_info=False, return_format="dict")["named_endpoints"])
    assert {"/ask", "/upload", "/remove_upload", "/list_uploads", "/select_course", "/clear"} <= names
    assert not any("instructor" in name for name in names)
    for name in ("/instructor_unlock", "/instructor_build", "/instructor_batch"):
        with pytest.raises(Exception):
            client.predict(TOKEN, "csc3100", "en", api_name=name)


def test_instructor_handlers_recheck_the_token_on_every_call(app_url):
    deps = dependencies(app_url)
    unlock, build, batch = deps["instructor_unlock"], deps["instructor_build"], deps["instructor_batch"]
    for bad in ("", "wrong-token", TOKEN + "x", TOKEN[:-1]):
        for dep, data in (
            (unlock, [bad, "csc3100", "en"]),
            (build, [bad, "csc3100", True, "en"]),
            (batch, [bad, "csc3100", LATE_POLICY, "en"]),
        ):
            output = queue_call(app_url, dep, data)["output"]["data"]
            assert output[0].startswith("🔒"), output
            assert output[1] == {"visible": False, "__type__": "update"}
            text = json.dumps(output, ensure_ascii=False)
            assert "syllabus.md" not in text and "passages indexed" not in text

    outputs = [
        queue_call(app_url, unlock, [TOKEN, "csc3100", "en"])["output"]["data"],
        queue_call(app_url, build, [TOKEN, "csc3100", False, "en"])["output"]["data"],
        queue_call(app_url, batch, [TOKEN, "csc3100", LATE_POLICY + "\nWhat is the capital of Atlantis?", "en"])[
            "output"
        ]["data"],
    ]
    unlocked, built, batched = outputs
    assert unlocked[1]["visible"] is True and "syllabus.md" in json.dumps(unlocked[3])
    assert "csc3100: 8 files" in built[2] and "0 failed" in built[2]
    rows = batched[2]["data"]
    assert [row[2].split()[0] for row in rows] == ["answered", "refused"] and "syllabus.md" in rows[0][4]
    for output in outputs:
        assert TOKEN not in json.dumps(output, ensure_ascii=False)


# -- rendering (no server needed) ----------------------------------------------------------


def test_citation_block_escapes_text_and_links_course_pdfs_at_the_page():
    from courserag.ui import render_citations

    docs = {"csc3100": PROJECT_ROOT / "courses" / "csc3100"}
    html_block = render_citations(
        [
            {
                "n": 1,
                "source": "lectures/week03_hashing.pdf",
                "locator": "page 4",
                "origin": "course",
                "course_id": "csc3100",
                "text": "Load factor <script>alert(1)</script>\n\nrehash",
            },
            {"n": 2, "source": "mine.pdf", "locator": "page 2", "origin": "upload", "course_id": None, "text": "x < y"},
            {
                "n": 3,
                "source": "../../app.py",
                "locator": "lines 1-5",
                "origin": "course",
                "course_id": "csc3100",
                "text": "t",
            },
        ],
        "en",
        docs,
    )
    assert "<script>" not in html_block and "&lt;script&gt;" in html_block
    assert "\n" not in html_block  # one Markdown HTML block
    assert "week03_hashing.pdf#page=4" in html_block and "course-file/csc3100/" in html_block
    assert html_block.count("<a ") == 1  # no link for the upload nor for a path outside the course
    assert "your notes" in html_block and "course material" in html_block
    zh = render_citations(
        [{"n": 1, "source": "课程大纲.md", "locator": "考核", "origin": "course", "course_id": "ds2010", "text": "t"}],
        "zh",
        {"ds2010": PROJECT_ROOT / "courses" / "ds2010"},
    )
    assert "课程资料" in zh and "%E8%AF%BE" in zh  # Chinese path is URL-encoded


def test_answer_text_keeps_code_but_not_raw_html():
    from courserag.ui import escape_markdown_html

    # Rendered on the server and sanitized (courserag/ui/rendering/sanitize.py): code stays code, and
    # a "<" is text everywhere, inside code too (issue 14, M2).
    assert escape_markdown_html("if a<b then `x<y` and\n```\nif (i<n) {}\n```") == (
        '<div class="cr-md"><p>if a&lt;b then <code>x&lt;y</code> and</p>&#10;'
        "<pre><code>if (i&lt;n) {}&#10;</code></pre>&#10;</div>"
    )


# -- streaming, warnings and refusals in the chat (handlers over the test engine) ----------


@pytest.fixture
def study_app(engine, tmp_path):
    from dataclasses import replace

    from courserag.ui import StudyApp

    return StudyApp(engine, replace(engine.settings, data_dir=tmp_path / "data"))


def _chat_updates(app, question, scope="both", course="csc3100"):
    return list(app.ask(question, [], course, scope, None, "en", []))


def visible(html_text: str) -> str:
    """What the chat shows of a message: answers are sanitized HTML since issue 14 (M2)."""
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", html_text.replace("&#10;", "\n"))).strip()


def test_llm_answers_stream_into_the_chat_then_get_their_sources(study_app):
    class StreamingLLM:
        def stream(self, messages):
            yield from ["The late ", "policy costs ", "10% per day [1]."]

    study_app.engine.answerer = StreamingLLM()
    updates = _chat_updates(study_app, LATE_POLICY)
    texts = [
        message_text(update[0][-1]) if isinstance(update[0][-1]["content"], list) else update[0][-1]["content"]
        for update in updates
    ]
    assert texts[0] == "*Searching the materials …*"
    assert [visible(text) for text in texts[1:4]] == [
        "The late",
        "The late policy costs",
        "The late policy costs 10% per day [1].",
    ]
    assert visible(texts[-1]).startswith("The late policy costs 10% per day [1].") and 'class="cr-sources"' in texts[-1]
    assert updates[-1][3]["mode"] == "llm" and updates[-1][3]["citations"]


def test_chat_followups_read_the_answers_before(study_app):
    """The chat hands the engine each earlier answer, not only the questions: "the second
    one" is the second item of the list the chat showed."""
    first = list(study_app.ask("What are the four rotation cases?", [], "csc3100", "both", None, "en", []))[-1]
    history, turns = first[0], first[2]
    second = list(study_app.ask("What about the second one?", history, "csc3100", "both", None, "en", turns))[-1]
    reply = second[3]
    assert reply["focus"] and reply["focus"] in reply["answer"] and not reply["refused"]
    assert reply["focus"].split(" ")[0] == turns[0].answer.splitlines()[2].lstrip("- ").split(" ")[0]


def test_warnings_are_shown_with_the_answer(study_app):
    from courserag.errors import LLMUnavailableError, StoreUnavailableError

    class BrokenLLM:
        def stream(self, messages):
            raise LLMUnavailableError("llm_failed", host="http://llm.invalid", kind="ConnectError")
            yield  # pragma: no cover

    study_app.engine.answerer = BrokenLLM()
    final = _chat_updates(study_app, LATE_POLICY)[-1]
    shown = final[0][-1]["content"]
    assert "<blockquote>" in shown and "⚠️ Note: the language model at http://llm.invalid failed" in visible(shown)
    assert "From the materials" in shown and 'class="cr-sources"' in shown

    class DownStore:
        name = "weaviate"

        def __getattr__(self, attr):
            def fail(*args, **kwargs):
                raise StoreUnavailableError("connection refused")

            return fail

    study_app.engine.answerer = None
    study_app.engine.store = DownStore()
    study_app.forget_index_status("csc3100")
    assert "cannot be reached" in study_app.course_card("csc3100", "en")
    final = _chat_updates(study_app, LATE_POLICY)[-1]
    assert "⚠️ Note: The course knowledge base (weaviate) is unavailable" in visible(final[0][-1]["content"])
    assert final[3]["refused"] is True


def test_refusals_are_plain_and_suggest_what_to_try(study_app):
    final = _chat_updates(study_app, "What is the recipe for a chocolate soufflé with raspberries?")[-1]
    shown = final[0][-1]["content"]
    assert final[3]["refused"] is True and final[3]["citations"] == []
    assert "cr-sources" not in shown and "Try rephrasing" in shown


def test_instructor_tab_is_hidden_when_the_server_has_no_token(engine):
    from dataclasses import replace

    from courserag.ui import build_demo

    def tab_visible(settings) -> bool:
        config = build_demo(engine, settings).get_config_file()
        [tab] = [c for c in config["components"] if c.get("props", {}).get("elem_id") == "cr-tab-instructor"]
        return tab["props"]["visible"]

    assert tab_visible(replace(engine.settings, instructor_enabled=False)) is False
    assert tab_visible(replace(engine.settings, instructor_enabled=True)) is True


def test_upload_result_lines_in_both_languages():
    from courserag.engine.facade import UploadResult
    from courserag.ui import render_upload_log, upload_line

    assert upload_line(UploadResult("notes.pdf", True, 3, 3, "pdf"), "en") == (
        "ok",
        "✓ notes.pdf: 3 pages read, 3 passages added",
    )
    assert upload_line(UploadResult("a.py", True, 1, 1, "py"), "en") == ("ok", "✓ a.py: 1 line read, 1 passage added")
    assert upload_line(UploadResult("s.pptx", True, 2, 4, "pptx"), "zh") == (
        "ok",
        "✓ s.pptx：读取 4 张幻灯片，新增 2 个段落",
    )
    assert "already uploaded" in upload_line(UploadResult("n.md", True, 0, 2, "md", duplicate=True), "en")[1]
    from courserag.errors import CorruptFileError

    failure = CorruptFileError("bad.pdf", "no_text_extracted").notice
    kind, text = upload_line(UploadResult("bad.pdf", False, failure=failure), "zh")
    assert kind == "fail" and text == "✗ bad.pdf：无法从该文件中提取任何文字"
    assert (
        render_upload_log([("fail", "✗ <b>x</b>.pdf")])
        == '<div class="cr-log"><div class="cr-fail">✗ &lt;b&gt;x&lt;/b&gt;.pdf</div></div>'
    )


# -- the port (issue 12, point 8) ------------------------------------------------------------


@pytest.mark.parametrize("variable", ["PORT", "GRADIO_SERVER_PORT"])
def test_a_busy_port_is_one_clean_line_naming_port(variable):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if k not in {"PORT", "GRADIO_SERVER_PORT", "SPACE_ID", "DATA_DIR"}}
        env.update({variable: str(port), "HOST": "127.0.0.1", "HF_HUB_OFFLINE": "1"})
        done = subprocess.run(
            [sys.executable, "app.py"], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120
        )
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and len(lines) == 1, done.stderr
    assert f"port {port}" in lines[0] and "PORT" in lines[0]


def test_the_configuration_table_documents_the_port():
    readme = (PROJECT_ROOT / "docs" / "CONFIGURATION.md").read_text(encoding="utf-8")
    assert "`PORT`" in readme and "GRADIO_SERVER_PORT" in readme
