"""`python -m training.reader` (training/reader/cli.py): what it refuses, and a count of windows."""

from __future__ import annotations

import json

import pytest

from training.reader.cli import main


def test_resume_refuses_settings_of_its_own(tmp_path):
    with pytest.raises(SystemExit, match="drop --steps, --batch-size"):
        main(["train", "--out", str(tmp_path), "--resume", "--steps", "3", "--batch-size", "2"])


def test_windows_counts_a_set(shared_train, capsys):
    assert main(["windows", "--sets", "mlqa_dev_zh", "--max-tokens", "128", "--stride", "64"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["set"] for r in rows] == ["mlqa_dev_zh", "all"]
    assert rows[0]["questions"] == 483 and rows[0]["windows"] >= rows[0]["with_answer"] >= 483
