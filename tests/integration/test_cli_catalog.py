"""`rag_engine.py catalog check DIR` and a failing catalog in `ask --json`, run as real processes
(issue 42, item 4). Every wait is on the process ending; nothing is timed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT

HARBOUR = PROJECT_ROOT / "tests" / "fixtures" / "catalog_harbour"
LINE = re.compile(r"^(?P<file>\S+\.csv):(?P<row>\d+): (?P<field>\w+): (?P<message>.+)$")
EDITS = [  # file, old, new: five problems in three files
    ("courses.csv", "LANG1200,Academic Writing,学术写作,2", "LANG1200,Academic Writing,学术写作,two"),
    ("sections.csv", "10:30,12:20,HB-204,i-chen,en", "10:30,12:20,HB-999,i-chen,english"),
    ("requirements.csv", "ECON3420,required,FIELD,", "ECON3420,required,FIELDX,"),
]
PROBLEMS = [  # what `catalog check` prints (after the folder), in the order of the files' checks
    "courses.csv:13: credits: must be a number >= 0, but got 'two'",
    "sections.csv:7: room: HB-999 is not in rooms.csv",
    "sections.csv:7: language: 'english' is no language code (en, zh, fr, zh-Hant…; several: en;zh)",
    "requirements.csv:9: group: FIELD is a choice of one course (a group needs at least two rows)",
    "requirements.csv:10: group: FIELDX is a choice of one course (a group needs at least two rows)",
]


def run(args: list[str], **env) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("CATALOG", "WEAVIATE_URL", "LLM_BASE_URL")}
    environment.update(HF_HUB_OFFLINE="1", **{k: str(v) for k, v in env.items()})
    return subprocess.run(
        [sys.executable, str(PROJECT_ROOT / "rag_engine.py"), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=environment,
        cwd=PROJECT_ROOT,
    )


def broken_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "catalog_harbour"
    shutil.copytree(HARBOUR, folder)
    for name, old, new in EDITS:
        path = folder / name
        text = path.read_text(encoding="utf-8")
        assert old in text, old
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


@pytest.mark.parametrize("folder", ["catalog", "tests/fixtures/catalog_harbour"])
def test_a_clean_catalog_checks_with_one_summary_line_and_exit_0(folder):
    proc = run(["catalog", "check", folder])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (line,) = proc.stdout.splitlines()
    counts = {
        "catalog": "39 courses, 58 sections, 2 programs",
        "tests/fixtures/catalog_harbour": "12 courses, 12 sections, 2 programs",
    }
    assert line.startswith(f"{folder}: OK, {counts[folder]}") and proc.stderr == ""


def test_a_broken_catalog_prints_every_problem_as_file_row_field_message_and_exits_1(tmp_path):
    folder = broken_copy(tmp_path)
    proc = run(["catalog", "check", str(folder)])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines == [f"{folder}/{said}" for said in PROBLEMS]
    assert all(LINE.match(line.removeprefix(f"{folder}/")) for line in lines)
    assert proc.stderr.strip() == f"error: {len(PROBLEMS)} problem(s) in the catalog {folder}"


def test_checking_a_folder_that_is_not_there_is_an_input_error(tmp_path):
    proc = run(["catalog", "check", str(tmp_path / "absent")])
    assert proc.returncode == 3 and "no catalog folder at" in proc.stderr and proc.stdout == ""


def test_ask_json_warns_that_the_catalog_failed_and_answers_without_it(tmp_path):
    """Before: a broken catalog logged one line on stderr and `ask --json` said nothing."""
    folder = broken_copy(tmp_path)
    proc = run(
        ["ask", "--course", "csc3100", "--json", "How many credits is ECON2105A?"],
        CATALOG=folder,
        DATA_DIR=tmp_path / "data",
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    result = json.loads(proc.stdout)
    assert {"answer", "refused", "citations", "warnings", "timings_ms", "mode"} <= set(result)
    assert result["mode"] != "catalog"
    (warning,) = [w for w in result["warnings"] if "course catalog" in w]
    assert (
        f"The course catalog in {folder} failed its checks ({len(PROBLEMS)} problems; the first: {PROBLEMS[0]})"
        in warning
    )
    assert "answers do not use it until it passes" in warning
