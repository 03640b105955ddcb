"""Which asked kinds of fact may be required of an answer: where the detectors see them (issue 19)."""

import json

import pytest

from courserag.answers.extractive.kinds import RECALL_FILE, accepted, need_label, reliably_detected
from courserag.answers.extractive.params import PARAMS


@pytest.fixture
def recall_file(tmp_path):
    path = tmp_path / "kind_recall.json"
    many = PARAMS.required_kind_questions
    path.write_text(
        json.dumps(
            {
                "found_and_asked": {
                    "en": {"date/time": [many, many], "place": [1, many]},
                    "zh": {"place": [0, many - 1]},
                }
            }
        ),
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    "need, script, required",
    [
        (frozenset({"date", "time"}), "en", True),  # found in every answer that has it
        (frozenset({"place"}), "en", False),  # missed in most answers: never a reason to refuse
        (frozenset({"place"}), "zh", True),  # too few questions to tell: kept
        (frozenset({"phone"}), "en", True),  # never measured: kept
    ],
)
def test_a_kind_is_required_unless_its_detector_is_measured_to_miss_it(recall_file, need, script, required):
    assert reliably_detected(need, script, recall_file) is required


def test_without_measurements_every_kind_may_be_required(tmp_path):
    assert reliably_detected(frozenset({"place"}), "en", tmp_path / "absent.json")


def test_a_need_is_named_by_its_kinds_in_order_and_a_when_accepts_a_condition():
    assert need_label(frozenset({"time", "date"})) == "date/time"
    assert accepted(frozenset({"date", "time"})) == {"date", "time", "condition"}
    assert accepted(frozenset({"place"})) == {"place"}


def test_the_shipped_measurements_name_known_needs_and_count_sensibly():
    data = json.loads(RECALL_FILE.read_text(encoding="utf-8"))["found_and_asked"]
    assert set(data) <= {"en", "zh"}
    for labels in data.values():
        for label, (found, asked) in labels.items():
            assert 0 <= found <= asked and label == need_label(frozenset(label.split("/")))
