"""Crowded readings (training/reader/crowd.py): a held-out question over its own passage among
the passages of its set nearest it, scored like any held-out question."""

from __future__ import annotations

import pytest

from tests.unit.training.test_distractors import example
from training.reader.crowd import SEPARATOR, SUFFIX, among, crowded
from training.reader.sets import Example

PASSAGES = {
    "exam": "The final exam of Priya Nair's course is on Friday in Hall B.",
    "hours": "Priya Nair holds office hours on Fridays in Lab C2.",
    "phone": "Priya Nair can be reached by phone at 555-0101.",
    "weather": "Rain is expected over the weekend in the valley.",
}
PHONE = example("q1", "What is the phone number of Priya Nair?", PASSAGES["phone"], "555-0101")
QUESTIONS = [
    PHONE,
    example("q2", "When are the office hours of Priya Nair?", PASSAGES["hours"], "Fridays"),
    example("q3", "Where is the final exam?", PASSAGES["exam"], "Hall B"),
    example("q4", "Will it rain this weekend?", PASSAGES["weather"], "Rain"),
    # a set's worth of other passages, so that a term in three of them is still a rare one
    *[example(f"f{i}", f"What is item {i}?", f"Item {i} is a filler.", f"Item {i}") for i in range(80)],
]


def parts(e: Example) -> list[str]:
    return e.context.split(SEPARATOR)


@pytest.mark.parametrize("place", [0, 1, 2])
def test_the_answers_move_with_the_own_passage_wherever_it_is_put(place):
    moved = among(PHONE, [PASSAGES["hours"], PASSAGES["exam"]], place)
    assert parts(moved)[place] == PASSAGES["phone"]
    assert [moved.context[a.start : a.end] for a in moved.answers] == ["555-0101"]
    assert moved.qid == "q1" + SUFFIX and moved.question == PHONE.question


def test_a_question_is_read_among_the_passages_nearest_it_that_do_not_answer_it():
    out = {e.qid: e for e in crowded(QUESTIONS, others=2)}
    phone = out["q1" + SUFFIX]
    # "priya" and "nair" are shared by the office hours and the exam; the own passage once
    assert sorted(parts(phone)) == sorted([PASSAGES["phone"], PASSAGES["hours"], PASSAGES["exam"]])
    assert len(out) == len(QUESTIONS) and all(len(parts(e)) == 3 for e in out.values())


def test_a_passage_holding_the_answer_is_never_one_of_the_others():
    twin = example("q5", "What is the phone number of Priya Nair?", "Call 555-0101 for Priya Nair.", "555-0101")
    (phone,) = [e for e in crowded([*QUESTIONS, twin], others=3) if e.qid == "q1" + SUFFIX]
    assert "Call 555-0101 for Priya Nair." not in parts(phone)
    assert parts(phone).count(PASSAGES["phone"]) == 1


def test_too_few_near_passages_are_made_up_with_seeded_others_and_the_place_is_seeded():
    lone = example("q6", "文档在哪里？", PASSAGES["weather"], "Rain")
    first = [e for e in crowded([*QUESTIONS, lone], others=3, seed=4) if e.qid == "q6" + SUFFIX]
    again = [e for e in crowded([*QUESTIONS, lone], others=3, seed=4) if e.qid == "q6" + SUFFIX]
    assert first == again and len(parts(first[0])) == 4
    owns = [parts(e).index(q.context) for e, q in zip(crowded(QUESTIONS, others=3, seed=4), QUESTIONS)]
    assert set(owns) == {0, 1, 2, 3}  # the own passage is not always first


def test_each_set_is_crowded_with_its_own_passages_and_none_at_zero():
    other = [example(f"t{i}", f"Who is tutor {i}?", f"Tutor {i} is Ann {i}.", f"Ann {i}", "t") for i in range(5)]
    out = crowded(QUESTIONS[:4] + other, others=2)
    tutors = {e.context for e in other}
    assert all(set(parts(e)) <= tutors for e in out if e.set_name == "t")
    assert [e.qid for e in out] == [e.qid + SUFFIX for e in QUESTIONS[:4] + other]
    assert crowded(QUESTIONS, others=0) == QUESTIONS


def test_a_set_with_fewer_passages_than_asked_gives_each_question_all_it_has():
    out = crowded(QUESTIONS[:3], others=5)
    assert all(len(parts(e)) == 3 for e in out)


def test_a_crowded_question_is_scored_as_its_set_s_own():
    from training.reader.evaluate import Prediction, score

    (phone,) = [e for e in crowded(QUESTIONS, others=2) if e.qid == "q1" + SUFFIX]
    scores = score([phone], [Prediction("555-0101", 0.9)])
    assert scores["s"]["questions"] == 1 and scores["s"]["em"] == 1.0 and scores["s"]["span_f1"] == 1.0
