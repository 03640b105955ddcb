"""The command-line contract (`rag_engine.py ask --json`), run as a real subprocess."""

import json
import os
import subprocess
import sys

import pytest

from courserag.lang.script import has_ideograph
from tests.conftest import PROJECT_ROOT

CITATION_KEYS = {"n", "source", "locator", "origin", "course_id", "score", "text"}


def run(args, data_dir, timeout=180, **env):
    environment = {**os.environ, "DATA_DIR": str(data_dir), **env}
    return subprocess.run(
        [sys.executable, str(PROJECT_ROOT / "rag_engine.py"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment,
        cwd=PROJECT_ROOT,
    )


def check_contract(result: dict) -> None:
    assert set(result) >= {"answer", "refused", "citations", "warnings", "timings_ms"}
    assert isinstance(result["answer"], str) and isinstance(result["refused"], bool)
    assert isinstance(result["warnings"], list)
    assert set(result["timings_ms"]) >= {"retrieval", "answer", "total"}
    assert all(isinstance(v, (int, float)) for v in result["timings_ms"].values())
    for n, citation in enumerate(result["citations"], start=1):
        assert set(citation) >= CITATION_KEYS
        assert citation["n"] == n and citation["origin"] in ("course", "upload")
        assert isinstance(citation["score"], float) and citation["text"]


def test_ask_json_with_upload(sample_data, tmp_path):
    notes = tmp_path / "lab_notes.txt"
    notes.write_text("The lab partner for project two is Zoltan Kovacs from section B.\n", encoding="utf-8")
    proc = run(
        ["ask", "--course", "csc3100", "--upload", str(notes), "--json", "Who is the lab partner for project two?"],
        sample_data,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    check_contract(result)
    assert result["citations"][0]["origin"] == "upload" and result["citations"][0]["course_id"] is None
    assert result["citations"][0]["source"] == "lab_notes.txt"


def test_batch_loads_once_and_writes_one_line_per_question(sample_data, tmp_path):
    batch = tmp_path / "questions.jsonl"
    lines = [
        {"question": "What is the late policy for homework?", "course": "csc3100"},
        {"question": "作业迟交超过48小时会怎样？", "course": "ds2010"},
        {"question": "What is the capital of France?", "course": "csc3100"},
    ]
    batch.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines), encoding="utf-8")
    proc = run(["ask", "--batch", str(batch), "--json"], sample_data)
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(results) == 3
    for result in results:
        check_contract(result)
    assert results[0]["citations"][0]["course_id"] == "csc3100"
    assert results[1]["citations"][0]["course_id"] == "ds2010"
    assert results[2]["refused"] is True and results[2]["citations"] == []
    refused_log = sample_data / "refused_questions.jsonl"  # a batch test is no learner's content gap (issue 21)
    assert "capital of France" not in (refused_log.read_text(encoding="utf-8") if refused_log.exists() else "")


@pytest.mark.parametrize(
    "args, message",
    [
        (["ask", "--course", "nope", "--json", "hi"], "unknown course id 'nope'"),
        (["ask", "--course", "csc3100", "--upload", "/does/not/exist.pdf", "hi"], "upload not found"),
        (["ask", "--json", "hi"], "--course is required"),
    ],
)
def test_bad_input_is_one_clear_line_without_traceback(sample_data, args, message):
    proc = run(args, sample_data)
    assert proc.returncode != 0
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_unreadable_upload(sample_data, tmp_path):
    bad = tmp_path / "scan.pdf"
    bad.write_bytes(b"not a pdf at all")
    proc = run(["ask", "--course", "csc3100", "--upload", str(bad), "--json", "hi"], sample_data)
    assert proc.returncode != 0 and "scan.pdf" in proc.stderr and "Traceback" not in proc.stderr


def test_a_follow_up_is_asked_with_its_history_from_a_file_and_in_a_batch(sample_data, tmp_path):
    history = [
        {"role": "user", "content": "When is the midterm exam?"},
        {"role": "assistant", "content": "The midterm is on Tuesday 2026-10-20."},
    ]
    path = tmp_path / "history.json"
    path.write_text(json.dumps(history), encoding="utf-8")
    proc = run(["ask", "--course", "csc3100", "--history", str(path), "--json", "Which room is it in?"], sample_data)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert "midterm" in result["query"].lower() and "LH-1" in result["answer"]
    batch = tmp_path / "batch.jsonl"
    cases = "From the materials:\n- LL case (the key went into the left subtree of z's left child): one right rotation at z. [1]"
    listing = [
        {"role": "user", "content": "What are the four rotation cases?"},
        {
            "role": "assistant",
            "content": cases + "\n- RR case (right subtree of z's right child): one left rotation at z. [1]",
        },
    ]
    lines = [
        {"question": "Which room is it in?", "course": "csc3100", "history": history},
        {"question": "What about the second one?", "course": "csc3100", "history": listing},
    ]
    batch.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    proc = run(["ask", "--batch", str(batch), "--json"], sample_data)
    assert proc.returncode == 0, proc.stderr
    room, second = (json.loads(line) for line in proc.stdout.splitlines())
    assert "LH-1" in room["answer"] and room["focus"] == ""
    # `focus` (an added field) names the item the follow-up pointed at; the answer is about it alone.
    assert second["focus"].startswith("RR case") and "RR case" in second["answer"] and "LL case" not in second["answer"]


@pytest.mark.parametrize(
    "question, catalog",
    [
        ("Which room is PHY2001 in?", "off"),  # a code no file of the course names
        ("What is CSC3200?", None),  # a former code in the sample catalog
        ("What is CSC9999?", None),  # a code of the course's shape that exists nowhere
        ("CSC3020 是什么课？", None),  # a cross-listed code, asked in Chinese
    ],
)
def test_a_code_nothing_names_is_refused_in_the_questions_language(sample_data, question, catalog):
    env = {"CATALOG": catalog} if catalog else {}
    proc = run(["ask", "--course", "csc3100", "--json", question], sample_data, **env)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    check_contract(result)
    assert "Traceback" not in proc.stderr
    assert result["refused"] is True or result["citations"], result
    if result["refused"] and "是" in question:
        assert has_ideograph(result["answer"]), result["answer"]


def test_a_line_that_fails_is_an_error_row_and_the_batch_goes_on(sample_data, tmp_path):
    batch = tmp_path / "questions.jsonl"
    lines = [
        json.dumps({"question": "Which room is PHY2001 in?", "course": "csc3100"}),
        "not json at all",
        json.dumps({"question": "What is the late policy for homework?", "course": "nope"}),
        json.dumps(["a list, not an object"]),
        json.dumps({"question": "What is the late policy for homework?", "course": "csc3100"}),
    ]
    batch.write_text("\n".join(lines), encoding="utf-8")
    proc = run(["ask", "--batch", str(batch), "--json"], sample_data, CATALOG="off")
    results = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(results) == 5, proc.stderr
    assert results[0]["refused"] is True and "PHY2001" in results[0]["answer"]
    assert [r.get("line") for r in results[1:4]] == [2, 3, 4] and all("error" in r for r in results[1:4])
    assert "unknown course id 'nope'" in results[2]["error"]
    check_contract(results[4])
    assert results[4]["refused"] is False and results[4]["citations"]
    # The exit status is the number of failed lines.
    assert proc.returncode == 3 and "3 line(s)" in proc.stderr


def test_an_internal_error_on_one_line_does_not_end_the_batch(tmp_path, capsys):
    """Fault injection: whatever goes wrong inside the engine for one question, the other
    lines are still answered and the failed one says which line it was."""
    from courserag import cli

    class Answered:
        def __init__(self, question):
            self.question = question

        def to_json(self):
            return {"answer": f"answer to {self.question}", "refused": False}

    class FailingOnce:
        def ask(self, course, question, **kwargs):
            if question == "boom":
                raise IndexError("list index out of range")
            return Answered(question)

    batch = tmp_path / "questions.jsonl"
    batch.write_text(
        "\n".join(json.dumps({"question": q, "course": "csc3100"}) for q in ("first", "boom", "third")),
        encoding="utf-8",
    )
    status = cli._run_batch(FailingOnce(), batch, None, "cli-test", "both")
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 1
    assert rows[0]["answer"] == "answer to first" and rows[2]["answer"] == "answer to third"
    assert rows[1] == {"line": 2, "error": "line 2: an internal error (IndexError)"}
