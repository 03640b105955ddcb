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


def test_windows_counts_the_readings_over_other_passages_apart(shared_train, capsys):
    sets = "mlqa_dev_zh,cmrc2018_trial_train"
    assert (
        main(
            ["windows", "--sets", sets, "--max-unanswerable", "2"]
            + ["--distractors", "0.5", "--off-topic", "0.5", "--answer-removed", "0.5", "--swapped", "0.5"]
        )
        == 0
    )
    rows = {r["set"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert rows["mlqa_dev_zh"]["questions"] == 483  # the readings are not questions of their own
    for name in sets.split(","):
        # each reading keeps at most 2 windows, none with an answer
        assert 0 < rows[name]["distractors_windows"] <= 2 * rows[name]["questions"]
        assert 0 < rows[name]["off_topic_windows"] <= 2 * rows[name]["questions"]
        assert 0 < rows[name]["answer_removed_windows"] <= 2 * rows[name]["questions"]
        assert 0 < rows[name]["swapped_windows"] <= 2 * rows[name]["questions"]
    assert rows["all"]["off_topic_windows"] == sum(rows[n]["off_topic_windows"] for n in sets.split(","))
