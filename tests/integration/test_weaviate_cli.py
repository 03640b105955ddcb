"""The Weaviate store end to end: build into Weaviate (the local wire-protocol server) with the
real command-line entry points, then ask through the CLI and see citations come from Weaviate
(issue 3)."""

import json
import time

import pytest

from courserag.cli import ask_main, build_main
from courserag.courses.facts import STORE_NAME as DIRECTORY_STORE
from tests.app_helpers import free_port


@pytest.fixture
def weaviate_env(monkeypatch, weaviate_server):
    monkeypatch.setenv("WEAVIATE_URL", weaviate_server.url)
    monkeypatch.setenv("WEAVIATE_GRPC_URL", weaviate_server.grpc_url)
    monkeypatch.setenv("WEAVIATE_TIMEOUT_S", "3")
    return weaviate_server


def ask_json(capsys, *args) -> dict:
    assert ask_main(["ask", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def build_json(capsys, *args) -> list[dict]:
    assert build_main([*args, "--json", "--no-progress"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_build_then_ask_answers_from_weaviate_for_both_courses(weaviate_env, capsys):
    first = build_json(capsys)
    assert [s["course_id"] for s in first] == ["csc3100", "ds2010"]
    assert all(s["indexed"] == s["files"] and not s["failed"] for s in first)

    english = ask_json(capsys, "--course", "csc3100", "What is the late policy for homework?")
    chinese = ask_json(capsys, "--course", "ds2010", "作业迟交超过48小时会怎样？")
    for result, course in ((english, "csc3100"), (chinese, "ds2010")):
        assert not result["refused"] and result["warnings"] == []
        assert {c["store"] for c in result["citations"]} == {"weaviate"}, [
            (c["source"], c["locator"], c["score"]) for c in result["citations"]
        ]
        assert {c["course_id"] for c in result["citations"]} == {course}
    assert english["citations"][0]["source"] == "syllabus.md"
    assert chinese["citations"][0]["source"] == "课程大纲.md"

    # Re-running the build over the wire writes nothing new.
    writes_before = len(weaviate_env.db.request_log)
    again = build_json(capsys)
    assert all(s["indexed"] == 0 and s["skipped"] == s["files"] and s["deleted"] == 0 for s in again)
    batch_writes = [r for r in weaviate_env.db.request_log[writes_before:] if "Batch" in str(r)]
    assert batch_writes == []

    # --dry-run and --rebuild.
    assert build_main(["--course", "csc3100", "--dry-run", "--no-progress"]) == 0
    assert "0 indexed" in capsys.readouterr().out
    rebuilt = build_json(capsys, "--course", "csc3100", "--rebuild")
    assert rebuilt[0]["indexed"] == rebuilt[0]["files"]


def test_ask_with_unreachable_weaviate_answers_from_uploads_with_warning(monkeypatch, capsys, tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("WEAVIATE_URL", url)
    monkeypatch.setenv("WEAVIATE_TIMEOUT_S", "2")
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nThe quiz on heaps is worth five bonus points.\n", encoding="utf-8")
    started = time.monotonic()
    result = ask_json(
        capsys, "--course", "csc3100", "--upload", str(notes), "How many bonus points is the heap quiz worth?"
    )
    assert time.monotonic() - started < 30
    assert any(url in w and "unavailable" in w for w in result["warnings"])
    assert result["citations"] and {c["origin"] for c in result["citations"]} == {"upload"}


def test_build_against_unreachable_weaviate_fails_fast_naming_the_url(monkeypatch, capsys):
    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("WEAVIATE_URL", url)
    monkeypatch.setenv("WEAVIATE_TIMEOUT_S", "2")
    started = time.monotonic()
    code = build_main(["--course", "csc3100", "--no-progress"])
    assert code != 0 and time.monotonic() - started < 30
    err = capsys.readouterr().err
    assert url in err and "Traceback" not in err


@pytest.mark.slow
def test_native_hybrid_search_mode(weaviate_env, monkeypatch, capsys):
    assert build_main(["--course", "csc3100", "--no-progress"]) == 0
    capsys.readouterr()
    monkeypatch.setenv("WEAVIATE_SEARCH", "hybrid")
    result = ask_json(capsys, "--course", "csc3100", "Do I need MAT-2040 before this course?")
    # The materials come from Weaviate; the course directory's facts (who teaches it), served
    # from course_directory.yaml whatever the store, may be cited beside them.
    assert {c["store"] for c in result["citations"]} - {DIRECTORY_STORE} == {"weaviate"}
    assert result["citations"][0]["store"] == "weaviate" and "MAT-2040" in result["citations"][0]["text"]
    searches = [r for r in weaviate_env.db.request_log if "hybrid" in str(r).lower()]
    assert searches
