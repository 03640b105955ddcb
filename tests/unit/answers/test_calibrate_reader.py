"""What the reader's calibration reports at a threshold (scripts/calibrate_reader.py), as a table."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def calibrate():
    sys.path.insert(0, str(ROOT / "scripts"))
    spec = importlib.util.spec_from_file_location("calibrate_reader", ROOT / "scripts" / "calibrate_reader.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ROWS = [
    {"answerable": True, "refused_by": None, "p": 0.9, "correct_if_answered": True},
    {"answerable": True, "refused_by": None, "p": 0.3, "correct_if_answered": True},
    {"answerable": True, "refused_by": "retrieval"},  # refused before the reader, at any threshold
    {"answerable": True, "scored": False, "refused_by": None, "p": 0.1},  # not scored: a false refusal only
    {"answerable": False, "refused_by": None, "p": 0.2},
    {"answerable": False, "refused_by": None, "p": 0.6},
]


@pytest.mark.parametrize(
    ("threshold", "correct", "no_answer_refused", "false_refusals"),
    [
        (0.0, 0.4, 0.0, 0.25),  # answers all it can: 2 of 3 answerable right, no refusal right
        (0.5, 0.4, 0.5, 0.75),  # refuses p 0.3 (an answerable one) and p 0.2 (a "no answer")
        (0.7, 0.6, 1.0, 0.75),
        (0.95, 0.4, 1.0, 1.0),
    ],
)
def test_the_figures_at_a_threshold_count_refusals_before_the_reader(
    calibrate, threshold, correct, no_answer_refused, false_refusals
):
    got = calibrate.figures(ROWS, threshold)
    assert got == {
        "questions": 6,
        "correct": correct,
        "no_answer_refused": no_answer_refused,
        "false_refusals": false_refusals,
    }
