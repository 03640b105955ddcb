"""The catalog's intent model: its features, its weights file, and a tiny fitting run."""

from __future__ import annotations

import json

import numpy as np
import pytest

from courserag.catalog.intents import (
    INTENTS,
    LABELS,
    NONE,
    VECTOR_MODEL,
    IntentModel,
    IntentWeightsError,
    features,
    intent_model,
    masked,
)
from training.catalog_intents.data import Example
from training.catalog_intents.fit import FitSettings, first_intent, fit


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many credits is CSC3100?", "how many credits is § ?"),
        ("csc 3100 的 prerequisite 是什么？", "§ 的 prerequisite 是什么?"),
        ("Is MATH-101 offered?", "is § offered?"),
        ("ＤＳ２０１０ 几个学分", "§ 几个学分"),
    ],
)
def test_course_codes_are_masked_so_the_wording_is_learnt_not_the_course(question, expected):
    assert masked(question) == expected


@pytest.mark.parametrize(
    ("question", "present"),
    [
        ("how many credts", {"w:credts", "c:<cre", "b:how many"}),  # a slip keeps its first letters
        ("DS2010 几个学分", {"w:§", "z2:学分", "z3:几个学", "b:§ 几"}),
        ("CSC3100 的 prerequisite", {"b:的 prerequisite", "w:prerequisite"}),
        ("year 2", {"w:0", "b:year 0"}),
    ],
)
def test_features_read_words_letter_runs_and_chinese_characters(question, present):
    assert present <= features(question)


def _model() -> IntentModel:
    """Knows one word: "credits" asks for credits; anything else is "none"."""
    words = np.array([[-4.0 if label != "credits" else 4.0 for label in LABELS]])
    bias = np.array([2.0 if label == NONE else 0.0 for label in LABELS])
    return IntentModel({"w:credits": 0}, words, np.zeros((3, len(LABELS))), bias, 0.3)


VECTOR = np.zeros(3)


def test_a_question_without_a_known_feature_asks_no_intent():
    assert _model().intents("when is the midterm", VECTOR) == ()
    assert _model().intents("credits of CSC3100", VECTOR) == ("credits",)


def test_a_second_intent_is_asked_when_it_is_likely_enough():
    model = _model()
    both = IntentModel(model.vocabulary, model.word_weights, model.vector_weights, model.bias, 0.0)
    assert both.intents("credits?", VECTOR) == INTENTS  # every intent reaches a threshold of 0


def test_the_weights_file_round_trips(tmp_path):
    path = tmp_path / "weights.json"
    path.write_text(json.dumps(_model().to_dict()), encoding="utf-8")
    assert intent_model(path).intents("credits?", VECTOR) == ("credits",)


@pytest.mark.parametrize(
    "content",
    [
        None,
        "{not json",
        json.dumps({"labels": ["credits", "grades"], "vector_model": VECTOR_MODEL, "bias": [0, 0]}),
        json.dumps({**_model().to_dict(), "vector_model": "all-MiniLM-L6-v2"}),
    ],
)
def test_a_missing_or_corrupt_weights_file_fails_with_a_message_naming_it(tmp_path, content):
    path = tmp_path / "weights.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(IntentWeightsError, match="weights.json"):
        intent_model(path)


def test_a_tiny_fitting_run_learns_intents_it_did_not_know(read_intents):
    """The fitting pipeline end to end on a few questions: the model it writes loads, and
    reads questions it was not fitted on by what they ask."""
    examples = [
        Example(q, intents, "g", "fit")
        for q, intents in [
            ("how many credits is CSC3100", ("credits",)),
            ("credits of MAT1001?", ("credits",)),
            ("DS2010 几个学分", ("credits",)),
            ("what are the prerequisites of CSC3100", ("prerequisites",)),
            ("prerequisites for MAT2040", ("prerequisites",)),
            ("DS2010 的先修课", ("prerequisites",)),
            ("when is the midterm", ()),
            ("期中考试几点", ()),
            ("homework deadline", ()),
        ]
    ]
    embed = read_intents.embed_query
    vectors = np.array([embed(masked(e.question)) for e in examples])
    model = IntentModel.from_dict(fit(examples, vectors, FitSettings(steps=150, min_count=1)).to_dict())
    untrained = IntentModel.from_dict(fit(examples, vectors, FitSettings(steps=0, min_count=1)).to_dict())
    asked = {q: first_intent(model, q, embed(masked(q))) for q in ("credits of DS2010?", "CSC3100 的先修课")}
    assert asked == {"credits of DS2010?": "credits", "CSC3100 的先修课": "prerequisites"}
    assert first_intent(untrained, "credits of DS2010?", embed(masked("credits of DS2010?"))) == LABELS[0]
