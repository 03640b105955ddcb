"""The pinned sets (training/reader/sets.py): hashes checked with the file named, answers
checked, the held-out rule deterministic and kept across MLQA's languages."""

from __future__ import annotations

import hashlib
import json

import pytest

from courserag.config.persistence import file_sha256 as sha256_file
from training.reader.sets import (
    PINS_FILE,
    DataPinError,
    Pins,
    load_pins,
    parse_squad,
    pinned_examples,
    read_set,
    split,
    take,
)

EVALUATION_SETS = ("squad_v1_dev", "xquad", "cmrc2018_dev", "drcd_dev", "syllabusqa", "mlqa_test")


def squad(qas: list[dict], context: str = "Lectures are in LH-1 on Mondays.") -> dict:
    return {"context_lang": "en", "data": [{"title": "t", "paragraphs": [{"context": context, "qas": qas}]}]}


def write_set(root, name: str, document: dict) -> str:
    (root / name).mkdir(parents=True)
    raw = json.dumps(document).encode()
    (root / name / "data.json").write_bytes(raw)
    return hashlib.sha256(raw).hexdigest()


def pins_for(**sets: str) -> Pins:
    return Pins({name: {"sha256": digest, "held_out_key": "context"} for name, digest in sets.items()}, 20, 0)


def test_a_set_is_read_when_its_hash_matches(tmp_path):
    digest = write_set(
        tmp_path, "tiny", squad([{"id": "1", "question": "Where?", "answers": [{"text": "LH-1", "answer_start": 16}]}])
    )
    (example,) = read_set("tiny", tmp_path, pins_for(tiny=digest))
    assert (example.qid, example.answers[0].text, example.answerable) == ("1", "LH-1", True)


def test_a_changed_set_is_refused_with_its_file_named(tmp_path):
    write_set(tmp_path, "tiny", squad([]))
    with pytest.raises(DataPinError, match=r"tiny/data\.json: SHA-256 is [0-9a-f]{64}, but data_pins\.json pins 0{64}"):
        read_set("tiny", tmp_path, pins_for(tiny="0" * 64))


def test_an_unpinned_or_missing_set_is_refused(tmp_path):
    with pytest.raises(DataPinError, match="'squad_v1_dev' is not pinned"):
        read_set("squad_v1_dev", tmp_path, pins_for(tiny="0" * 64))
    with pytest.raises(DataPinError, match="is not there"):
        read_set("tiny", tmp_path, pins_for(tiny="0" * 64))


def test_answers_are_checked_deduplicated_and_empty_ones_left_out():
    document = squad(
        [
            {"id": "ok", "question": "q", "answers": [{"text": "LH-1", "answer_start": 16}] * 2},
            {"id": "yes-no", "question": "q", "answers": [{"text": "", "answer_start": -1}]},
            {"id": "none", "question": "q", "is_impossible": True, "answers": []},
        ]
    )
    examples = parse_squad(document, "s")
    assert [(e.qid, len(e.answers), e.answerable) for e in examples] == [("ok", 1, True), ("none", 0, False)]
    bad = squad([{"id": "bad", "question": "q", "answers": [{"text": "LH-2", "answer_start": 16}]}])
    with pytest.raises(DataPinError, match="question 'bad': no 'LH-2' at offset 16"):
        parse_squad(bad, "s")


def test_the_held_out_split_is_deterministic_and_about_one_in_twenty():
    document = {
        "data": [
            {
                "title": "t",
                "paragraphs": [
                    {"context": f"passage {i}", "qas": [{"id": str(i), "question": "q", "is_impossible": True}]}
                    for i in range(400)
                ],
            }
        ]
    }
    examples = parse_squad(document, "s")
    pins = pins_for(s="0" * 64)
    train, held = split(examples, pins)
    assert (train, held) == split(examples, pins)
    assert 8 <= len(held) <= 35 and len(train) + len(held) == 400


def test_take_is_a_seeded_spread_in_file_order():
    examples = list(range(100))
    assert take(examples, 5, seed=0) == take(examples, 5, seed=0)
    assert take(examples, 5, seed=0) == sorted(take(examples, 5, seed=0))
    assert take(examples, 5, seed=0) != take(examples, 5, seed=1)
    assert take(examples, None, seed=0) == examples


FITTING = {"syllabusqa_train"}  # the one fitting split pinned (training/reader/fitting.py)


def test_the_pins_name_no_evaluation_set_only_syllabusqa_s_fitting_split():
    pins = load_pins()
    assert not [name for name in pins.sets if name not in FITTING and any(name.startswith(e) for e in EVALUATION_SETS)]
    assert PINS_FILE.is_file() and all(
        len(pins.sha256(name)) == 64 and pins.sets[name]["licence"] for name in pins.sets
    )


def test_the_pins_match_the_shared_sets(shared_train):
    pins = load_pins()
    shared = [name for name in pins.sets if name not in FITTING]
    assert {name: sha256_file(shared_train / name / "data.json") for name in shared} == {
        name: pins.sets[name]["sha256"] for name in shared
    }


def test_mlqa_s_parallel_questions_are_held_out_in_every_language(shared_train):
    names = ["mlqa_dev_en", "mlqa_dev_zh", "mlqa_dev_zh_q_en_p", "mlqa_dev_en_q_zh_p"]
    held = {name: {e.qid for e in pinned_examples([name], "held_out")} for name in names}
    trained = {name: {e.qid for e in pinned_examples([name], "train")} for name in names}
    assert held["mlqa_dev_zh"] and held["mlqa_dev_zh"] == held["mlqa_dev_en_q_zh_p"] == held["mlqa_dev_zh_q_en_p"]
    assert held["mlqa_dev_zh"] <= held["mlqa_dev_en"]
    assert not held["mlqa_dev_en"] & set().union(*trained.values())
