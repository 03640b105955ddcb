"""SyllabusQA's train split as reader examples (training/reader/fitting.py): spans found
loosely, "no answer" questions over their syllabus's closest chunk, and never a val question."""

from __future__ import annotations

import json

import pytest

from training.reader.fitting import closest_chunk, find_loosely
from training.reader.sets import eval_root, pinned_examples


@pytest.mark.parametrize(
    ("span", "text", "found"),
    [
        ("Class participation 10%", "Grades: Class participation 10% and exams", "Class participation 10%"),
        ("Office Hours: By appointment", "x Office  Hours:\nBy appointment y", "Office  Hours:\nBy appointment"),
        ("Final exam", "final exam", None),  # case matters
        ("   ", "anything", None),
    ],
)
def test_an_evidence_span_is_found_whatever_its_spaces_and_line_breaks(span, text, found):
    answer = find_loosely(span, text)
    assert (answer.text if answer else None) == found
    if answer:
        assert text[answer.start : answer.end] == answer.text


def test_a_no_answer_question_reads_the_chunk_sharing_most_of_its_words():
    chunks = [{"text": "Grading: homework 40%"}, {"text": "The final exam is in room 101"}, {"text": ""}]
    assert closest_chunk("Which room is the final exam in?", chunks)["text"] == "The final exam is in room 101"
    assert closest_chunk("anything", []) is None


def test_syllabusqa_examples_come_from_its_train_split_alone():
    folder = eval_root() / "syllabusqa_dev"
    if not (folder / "queries.jsonl").is_file():
        pytest.skip(f"the shared evaluation sets are not at {eval_root()} (set SHARED_EVAL)")
    splits = {}
    for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        splits[row["qid"]] = row["split"]
    examples = pinned_examples(["syllabusqa_train"], "train") + pinned_examples(["syllabusqa_train"], "held_out")
    assert {splits[e.qid] for e in examples} == {"train"}
    answerable = [e for e in examples if e.answerable]
    assert len(answerable) > 1_000 and len(examples) - len(answerable) > 300
    assert all(e.context[a.start : a.end] == a.text for e in answerable for a in e.answers)
