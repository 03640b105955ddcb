"""Secrets stay secret, uploads stay unlogged, the instructor tab stays locked.

LLM_API_KEY, WEAVIATE_API_KEY and INSTRUCTOR_TOKEN are random per run and really used: the
fake LLM (tests/llm_server.py) records the Authorization header it received, the fake
Weaviate (tests/weaviate_server) demands its API key. Then they must not appear in:

- the running app (`python app.py`, a subprocess): /config, /gradio_api/info, the
  OpenAPI document, the page, any API output, the app's own log;
- answers and warnings, also when the LLM fails and when Weaviate rejects a wrong key;
- log records of the engine (caplog at the production level INFO, DEBUG for courserag);
- stdout/stderr of the CLIs (rag_engine.py ask, build_weaviate_index.py).

Uploaded text is never logged (a canary string is searched for in every log). The
instructor handlers, which the browser must be able to reach by fn_index, refuse every call
without the token: through gradio_client, through POST /gradio_api/call/<name> and through
the queue, with empty, wrong, near-miss and non-string tokens. Hostile upload names sent
to Gradio's own upload route never create a file outside Gradio's temp folder.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx
import pytest

from tests.app_helpers import dependencies, free_port, queue_call
from tests.llm_server import start_fake_llm

PROJECT_ROOT = Path(__file__).resolve().parents[2]
LLM_KEY = "sk-llm-" + uuid.uuid4().hex
WEAVIATE_KEY = "wv-key-" + uuid.uuid4().hex
TOKEN = "instr-" + uuid.uuid4().hex
SECRETS = (LLM_KEY, WEAVIATE_KEY, TOKEN)
CANARY = "UPLOADCANARY" + uuid.uuid4().hex[:10]
NOTE = f"# Lab notes\n\nThe lab canary phrase is {CANARY} and the capybara lab meets in room C-303.\n"
NOTE_QUESTION = "Where does the capybara lab meet?"
LATE = "What is the late policy for homework?"


def assert_clean(text: str, *extra: str, what: str = "") -> None:
    for secret in SECRETS + extra:
        assert secret not in text, f"a secret ({secret[:8]}…) appeared in {what or 'the output'}"


# --------------------------------------------------------------------------- services


@pytest.fixture(scope="module")
def services(built_sample_data, cached_embedder):
    """A fake LLM and a fake Weaviate that requires WEAVIATE_KEY, csc3100 built into it."""
    from tests.integration.test_concurrency import build_weaviate_courses
    from tests.weaviate_server import start_server

    llm = start_fake_llm("ok")
    weaviate = start_server(api_key=WEAVIATE_KEY)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WEAVIATE_API_KEY", WEAVIATE_KEY)
        _, store = build_weaviate_courses(weaviate, built_sample_data, cached_embedder, ["csc3100"])
        store.close()
    try:
        yield llm, weaviate
    finally:
        llm.stop()
        weaviate.stop()


def secret_env(llm, weaviate, **extra) -> dict:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("WEAVIATE_", "LLM_")) and k not in {"INSTRUCTOR_TOKEN", "COURSE_DIRECTORY", "SPACE_ID"}
    }
    env.update(
        WEAVIATE_URL=weaviate.url,
        WEAVIATE_GRPC_URL=weaviate.grpc_url,
        WEAVIATE_API_KEY=WEAVIATE_KEY,
        WEAVIATE_TIMEOUT_S="3",
        LLM_BASE_URL=llm.base_url,
        LLM_API_KEY=LLM_KEY,
        LLM_MODEL="fake-model",
        INSTRUCTOR_TOKEN=TOKEN,
        HF_HUB_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        GRADIO_ANALYTICS_ENABLED="False",
    )
    env.update({k: str(v) for k, v in extra.items()})
    return env


@pytest.fixture(scope="module")
def app(services, built_sample_data, tmp_path_factory):
    """`python app.py` with every secret set, on a free port of 127.0.0.1."""
    llm, weaviate = services
    root = tmp_path_factory.mktemp("secret-app")
    data = root / "data"
    shutil.copytree(built_sample_data, data)
    gradio_tmp = root / "gradio-tmp"
    gradio_tmp.mkdir()
    port = free_port()
    log_path = root / "app.log"
    env = secret_env(
        llm,
        weaviate,
        DATA_DIR=data,
        PORT=port,
        HOST="127.0.0.1",
        GRADIO_TEMP_DIR=gradio_tmp,
        GRADIO_HEARTBEAT_INTERVAL=1,
    )
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "app.py"], cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 240
        while True:
            if proc.poll() is not None:
                raise AssertionError(
                    f"app.py exited with {proc.returncode}:\n{log_path.read_text(errors='replace')[-3000:]}"
                )
            try:
                if httpx.get(url + "config", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("app.py did not start within 240 s")
            time.sleep(0.5)
        yield {"url": url, "log": log_path, "data": data, "gradio_tmp": gradio_tmp, "llm": llm, "weaviate": weaviate}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert_clean(log_path.read_text(errors="replace"), CANARY, what="the app's log")


def client_for(url: str):
    from gradio_client import Client

    return Client(url, verbose=False)


def rest_call(url: str, api_name: str, data: list, timeout: float = 120.0) -> tuple[str, str]:
    """POST /gradio_api/call/<api_name>, then read the result stream: (last event, its data
    as readable JSON text), e.g. ("complete", '["🔒 Locked…", …]') or ("error", …)."""
    with httpx.Client(base_url=url, timeout=timeout) as http:
        posted = http.post(f"gradio_api/call/{api_name}", json={"data": data})
        if posted.status_code != 200:
            return f"http {posted.status_code}", posted.text
        event_id = posted.json()["event_id"]
        result = http.get(f"gradio_api/call/{api_name}/{event_id}")
    event, payload = "", ""
    for line in result.text.splitlines():
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            raw = line[5:].strip()
            try:
                payload = json.dumps(json.loads(raw), ensure_ascii=False)
            except ValueError:
                payload = raw
    return event, payload


# --------------------------------------------------------------------------- the app from outside


def test_config_info_and_page_expose_no_secret(app):
    url = app["url"]
    for path in (
        "config",
        "gradio_api/info",
        "gradio_api/info?all_endpoints=true",
        "gradio_api/openapi.json",
        "",
        "info",
    ):
        response = httpx.get(url + path, timeout=30)
        assert_clean(response.text, what=f"/{path}")
    client = client_for(url)
    try:
        assert_clean(json.dumps(client.view_api(print_info=False, return_format="dict")), what="view_api")
        assert_clean(json.dumps(client.config), what="the client's config")
    finally:
        client.close()


def test_answers_use_both_secrets_but_show_neither(app):
    llm = app["llm"]
    from gradio_client import handle_file

    note = Path(tempfile.mkdtemp()) / "capybara_lab.md"
    note.write_text(NOTE, encoding="utf-8")
    client = client_for(app["url"])
    try:
        outputs = [client.predict([handle_file(str(note))], api_name="/upload")]
        before = len(llm.requests)
        chat, _, payload = client.predict(NOTE_QUESTION, [], "csc3100", "both", api_name="/ask")
        outputs.append((chat, payload))
        assert payload["mode"] == "llm" and payload["warnings"] == [] and payload["citations"]
        chat, _, course = client.predict(LATE, [], "csc3100", "course", api_name="/ask")
        outputs.append((chat, course))
        assert {c["store"] for c in course["citations"]} == {"weaviate"}
        outputs.append(client.predict(api_name="/list_uploads"))
    finally:
        client.close()
    # The secrets were really used: the model got its key, Weaviate accepted its key.
    assert len(llm.requests) > before
    assert llm.headers[-1].get("authorization") == f"Bearer {LLM_KEY}"
    assert_clean(json.dumps(outputs, ensure_ascii=False), what="the API outputs")


def test_service_errors_shown_to_the_learner_name_no_secret(app):
    llm, weaviate = app["llm"], app["weaviate"]
    client = client_for(app["url"])
    try:
        llm.mode = "error500"
        chat, _, failed_llm = client.predict(LATE, [], "csc3100", "course", api_name="/ask")
        assert any("language model" in w for w in failed_llm["warnings"])
        weaviate.stop()
        chat2, _, failed_store = client.predict(LATE, [], "csc3100", "course", api_name="/ask")
        assert any(weaviate.url in w for w in failed_store["warnings"])
    finally:
        llm.mode = "ok"
        weaviate.start()
        client.close()
    assert_clean(json.dumps([chat, failed_llm, chat2, failed_store], ensure_ascii=False), what="error messages")


INSTRUCTOR_APIS = ("instructor_unlock", "instructor_build", "instructor_batch")
# Each wrong string costs the caller 0.5 s (check_token slows guessing), so a short list.
BAD_TOKENS = ["", "wrong", TOKEN[:-1], " " + TOKEN, None, [TOKEN], {"token": TOKEN}]


def _instructor_data(api_name: str, token) -> list:
    return {
        "instructor_unlock": [token, "csc3100", "en"],
        "instructor_build": [token, "csc3100", True, "en"],
        "instructor_batch": [token, "csc3100", LATE, "en"],
    }[api_name]


def _locked(output_text: str) -> bool:
    """A locked reply (🔒 ... and a hidden panel) or a rejected call; never any index data."""
    return "syllabus.md" not in output_text and "passages indexed" not in output_text and TOKEN not in output_text


def test_instructor_handlers_cannot_be_used_without_the_token(app):
    url = app["url"]
    manifest = app["data"] / "index" / "csc3100" / "manifest.json"
    generation = json.loads(manifest.read_text())["generation"]
    deps = dependencies(url)

    client = client_for(url)
    try:
        api = client.view_api(print_info=False, return_format="dict")
        assert not any("instructor" in name for name in api["named_endpoints"])
        for name in INSTRUCTOR_APIS:
            with pytest.raises(Exception):
                client.predict(*_instructor_data(name, TOKEN), api_name=f"/{name}")
    finally:
        client.close()

    calls = [("instructor_unlock", token) for token in BAD_TOKENS]
    calls += [(name, token) for name in INSTRUCTOR_APIS[1:] for token in ("", "wrong", None)]
    for name, token in calls:  # POST /gradio_api/call/<name>
        event, text = rest_call(url, name, _instructor_data(name, token))
        assert event == "complete" and text.startswith('["🔒'), (name, token, text[:300])
        assert _locked(text), (name, token, text[:300])
    for name in INSTRUCTOR_APIS:  # the queue, by fn_index, as the browser does
        for token in ("wrong",):
            message = queue_call(url, deps[name], _instructor_data(name, token))
            output = json.dumps(message.get("output", {}), ensure_ascii=False)
            assert output.startswith('{"data": ["🔒') and _locked(output), (name, token, output[:300])
    assert json.loads(manifest.read_text())["generation"] == generation  # no build ran

    # Positive control: the right token opens it, and the reply does not echo the token.
    event, text = rest_call(url, "instructor_unlock", [TOKEN, "csc3100", "en"])
    assert event == "complete" and "syllabus.md" in text and TOKEN not in text


def test_hostile_names_on_gradios_upload_route_stay_inside_its_temp_folder(app):
    url, gradio_tmp = app["url"], app["gradio_tmp"]
    names = ["../../gradio_escape.txt", "/etc/gradio_abs_escape.txt", "..\\..\\gradio_win_escape.txt"]
    escaped = ["gradio_escape.txt", "gradio_abs_escape.txt", "gradio_win_escape.txt", "..\\..\\gradio_win_escape.txt"]
    shared = [PROJECT_ROOT, Path(tempfile.gettempdir()), Path("/etc"), gradio_tmp.parent.parent]
    before_root, before_data = set(os.listdir(gradio_tmp.parent)), set(os.listdir(app["data"]))
    deps = dependencies(url)
    for name in names:
        body = f"# Escape\n\nThe escape canary for {name} is {uuid.uuid4().hex}.\n".encode()
        uploaded = httpx.post(url + "gradio_api/upload", files={"files": (name, body, "text/plain")}, timeout=30)
        assert uploaded.status_code == 200, uploaded.text
        (server_path,) = uploaded.json()
        assert Path(server_path).resolve().is_relative_to(gradio_tmp.resolve()), server_path
        file_data = {"path": server_path, "orig_name": name, "meta": {"_type": "gradio.FileData"}}
        message = queue_call(url, deps["upload"], [[file_data], None, "en"])
        log_html = message["output"]["data"][0]
        assert "✓" in log_html and "escape.txt" in log_html and "/" not in log_html.split("✓", 1)[1].split(":")[0], (
            log_html
        )
    assert set(os.listdir(gradio_tmp.parent)) == before_root
    assert set(os.listdir(app["data"])) - before_data <= {
        "citations.jsonl",
        "refused_questions.jsonl",
        "feedback.jsonl",
    }
    for folder in shared:
        assert not any((folder / name).exists() for name in escaped), folder
    for path in Path(gradio_tmp).rglob("*escape*"):
        assert path.resolve().is_relative_to(gradio_tmp.resolve())


# --------------------------------------------------------------------------- CLIs


def test_cli_stdout_and_stderr_carry_no_secret_even_on_errors(services, sample_data, tmp_path):
    """rag_engine.py ask with a failing LLM and a wrong Weaviate key (401). Every secret is
    set; none is printed; the upload's text is not on stderr. (test_faults runs both CLIs
    against a closed Weaviate port with the keys set and checks their output as well.)"""
    llm_ok, weaviate = services
    failing_llm = start_fake_llm("error500")
    wrong_key = "wv-wrong-" + uuid.uuid4().hex
    note = tmp_path / "capybara_lab.md"
    note.write_text(NOTE, encoding="utf-8")
    try:
        env = secret_env(failing_llm, weaviate, DATA_DIR=sample_data, WEAVIATE_API_KEY=wrong_key)
        ask = subprocess.run(
            [
                sys.executable,
                "rag_engine.py",
                "ask",
                "--course",
                "csc3100",
                "--upload",
                str(note),
                "--json",
                NOTE_QUESTION,
            ],
            cwd=PROJECT_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
    finally:
        failing_llm.stop()
    assert ask.returncode == 0, ask.stderr
    result = json.loads(ask.stdout)
    assert any("language model" in w for w in result["warnings"])
    assert any("WEAVIATE_API_KEY" in w and "401" in w for w in result["warnings"]), result["warnings"]
    assert failing_llm.headers and failing_llm.headers[0].get("authorization") == f"Bearer {LLM_KEY}"
    assert_clean(ask.stdout + ask.stderr, wrong_key, what="CLI output")
    assert CANARY not in ask.stderr and "Traceback" not in ask.stderr


# --------------------------------------------------------------------------- logs in process


def test_engine_logs_carry_no_secret_and_no_upload_text(
    services, sample_data, tmp_path, monkeypatch, caplog, cached_embedder
):
    from courserag.config.settings import Settings
    from courserag.engine.facade import RagEngine

    llm, weaviate = services
    for name, value in secret_env(llm, weaviate, DATA_DIR=sample_data).items():
        if name.startswith(("WEAVIATE_", "LLM_", "INSTRUCTOR_", "DATA_DIR")):
            monkeypatch.setenv(name, value)
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.DEBUG, logger="courserag")
    engine = RagEngine.from_settings(Settings.from_env())
    engine.embedder = cached_embedder
    note = tmp_path / "capybara_lab.md"
    note.write_text(NOTE, encoding="utf-8")
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\n" + CANARY.encode() + bytes(range(256)) * 20)
    answers = []
    try:
        assert engine.add_upload("s1", note).ok
        assert not engine.add_upload("s1", broken).ok
        answers.append(engine.ask("csc3100", NOTE_QUESTION, session_id="s1"))
        assert answers[-1].mode == "llm"
        llm.mode = "error500"
        answers.append(engine.ask("csc3100", NOTE_QUESTION, session_id="s1"))
        llm.mode = "ok"
        monkeypatch.setenv("WEAVIATE_API_KEY", "wv-wrong-" + uuid.uuid4().hex)
        engine.store.close()
        answers.append(engine.ask("csc3100", LATE, session_id="s1"))
        assert any("401" in w for w in answers[-1].warnings)
        wrong = os.environ["WEAVIATE_API_KEY"]
        monkeypatch.setenv("WEAVIATE_API_KEY", WEAVIATE_KEY)
        weaviate.stop()
        answers.append(engine.ask("csc3100", LATE, session_id="s1"))
    finally:
        llm.mode = "ok"
        weaviate.start()
        engine.store.close()
    records = caplog.records
    assert any(r.name.startswith("courserag") and r.levelno >= logging.WARNING for r in records)  # failures were logged
    text = "\n".join(
        f"{r.name} {r.getMessage()} {caplog.handler.formatter.formatException(r.exc_info) if r.exc_info else ''}"
        for r in records
    )
    assert_clean(text, wrong, what="the log records")
    assert CANARY not in text and "room C-303" not in text, "uploaded text was logged"
    for answer in answers:
        assert_clean(json.dumps(answer.to_json()), wrong, what="an answer")


def test_secrets_are_not_in_settings_or_engine_reprs(services, monkeypatch):
    from courserag.config.settings import Settings
    from courserag.engine.facade import RagEngine

    llm, weaviate = services
    for name, value in secret_env(llm, weaviate).items():
        if name.startswith(("WEAVIATE_", "LLM_", "INSTRUCTOR_")):
            monkeypatch.setenv(name, value)
    settings = Settings.from_env()
    engine = RagEngine.from_settings(settings)
    # The LLM client keeps its key privately (it must send it), but never in a repr or the settings.
    shown = repr(settings) + json.dumps(settings.describe()) + repr(engine.store) + repr(engine.answerer)
    assert_clean(shown, what="settings, store and answerer reprs")
