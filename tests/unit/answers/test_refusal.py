"""The composer's answer-or-refuse model (courserag/answers/extractive/refusal.py) and its fitting
(scripts/fit_refusal.py): features from ranked units, the shipped weights, the fit itself."""

from __future__ import annotations

import importlib.util
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from courserag.answers.extractive.refusal import (
    FEATURES,
    WEIGHTS_FILE,
    RefusalModel,
    decision_features,
    load_model,
    retrieval_relevance,
)

ROOT = Path(__file__).resolve().parents[3]


def _fitting():
    spec = importlib.util.spec_from_file_location("fit_refusal", ROOT / "scripts" / "fit_refusal.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class Unit:
    score: float
    margin: float
    coverage: float
    kinds: frozenset = frozenset()
    p: float = 0.0  # the unit model's score


DATE = frozenset({"date", "time"})


@pytest.mark.parametrize(
    "ranked, needs, expected",
    [
        # the best unit names the subject and holds the date asked for
        (
            [Unit(0.9, 0.15, 1.0, frozenset({"date"}))],
            [DATE],
            dict(need_held=1.0, need_held_named=1.0, max_coverage=1.0),
        ),
        # the date is in a unit that is neither on the subject by words nor by meaning
        ([Unit(0.5, 0.15, 1.0), Unit(0.2, 0.01, 0.1, frozenset({"date"}))], [DATE], dict(need_held=0.0, asks_kind=1.0)),
        # on subject by meaning only: held, but not by a unit that names the subject
        ([Unit(0.5, 0.15, 0.2, frozenset({"time"}))], [DATE], dict(need_held=1.0, need_held_named=0.0)),
        # "when does it resize?" is answered by a condition
        ([Unit(0.5, 0.15, 1.0, frozenset({"condition"}))], [DATE], dict(need_held=1.0)),
        # nothing asked for: every need is held
        ([Unit(0.5, 0.0, 0.0)], [], dict(need_held=1.0, asks_kind=0.0, top_margin=0.0)),
        # the unit model's best score, among all the units, not only the top ones by the hand-set score
        (
            [Unit(0.9, 0.1, 1.0, p=1.5)] + [Unit(0.5, 0.1, 1.0)] * 8 + [Unit(0.1, 0.1, 1.0, p=2.5)],
            [],
            dict(best_unit_logit=2.5),
        ),
    ],
)
def test_decision_features(ranked, needs, expected):
    features = decision_features(ranked, needs, False, 2, False, False, 0.12)
    assert set(features) == set(FEATURES)
    assert {k: features[k] for k in expected} == expected


@dataclass(frozen=True)
class Measured(Unit):
    features: dict | None = None  # the unit model's features (token_match among them)


@pytest.mark.parametrize(
    "ranked, share, token_match",
    [
        # one unit: all the unit model's probability is on it; no token states: unknown
        ([Unit(0.5, 0.1, 1.0, p=2.0)], 1.0, None),
        # n units alike: 1/n; the best token match over all of them, not the first unit's
        (
            [Measured(0.5, 0.1, 1.0, p=1.0, features={"token_match": 0.80})]
            + [Measured(0.4, 0.1, 1.0, p=1.0, features={"token_match": 0.86})] * 3,
            0.25,
            0.86,
        ),
        # one stands out by a logit of log(9) over one other: 0.9 of the probability
        ([Unit(0.5, 0.1, 1.0, p=math.log(9)), Measured(0.4, 0.1, 1.0, features={"token_match": None})], 0.9, None),
    ],
)
def test_the_best_unit_share_and_token_match(ranked, share, token_match):
    features = decision_features(ranked, [], False, 2, False, False, 0.12)
    assert features["best_unit_share"] == pytest.approx(share)
    assert features["max_token_match"] == token_match


def test_features_of_no_units_are_zero_and_cross_margin_only_across_languages():
    assert set(decision_features([], [], False, 0, False, False, 0.12).values()) == {0.0}
    ranked = [Unit(0.5, 0.08, 0.0), Unit(0.4, 0.11, 0.0)]
    assert decision_features(ranked, [], True, 0, True, True, 0.07)["cross_margin"] == 0.11
    assert decision_features(ranked, [], True, 3, False, True, 0.07)["cross_margin"] == 0.0
    assert decision_features(ranked, [], False, 3, False, False, 0.07)["subject_words"] == pytest.approx(math.log(4))


def _model(threshold=0.5) -> RefusalModel:
    names = ("max_margin", "need_held")
    return RefusalModel(names, (0.1, 0.5), (0.05, 0.5), (2.0, 1.0), 0.0, threshold)


@pytest.mark.parametrize(
    "features, p",
    [
        ({"max_margin": 0.1, "need_held": 0.5}, 0.5),  # at the mean: the bias alone
        ({"max_margin": 0.15, "need_held": 0.5}, 1 / (1 + math.exp(-2))),
        ({"max_margin": 5.0, "need_held": 1.0}, 1 / (1 + math.exp(-30))),  # clipped, never overflows
    ],
)
def test_probability(features, p):
    assert _model().probability(features) == pytest.approx(p)


def test_threshold_is_the_operating_point():
    low = {"max_margin": 0.09, "need_held": 0.5}
    assert _model(0.5).answers(low) is False and _model(0.3).answers(low) is True


def test_weights_round_trip_and_bad_files_say_what_is_wrong():
    model = _model()
    assert RefusalModel.from_dict(json.loads(json.dumps(model.to_dict()))) == model
    with pytest.raises(ValueError, match="unknown refusal features"):
        RefusalModel.from_dict({**model.to_dict(), "names": ["max_margin", "shoe_size"]})
    with pytest.raises(ValueError, match="2 names but"):
        RefusalModel.from_dict({**model.to_dict(), "coef": [1.0]})


def test_no_weights_file_means_no_model(tmp_path):
    assert load_model(tmp_path / "absent.json") is None


def test_the_shipped_weights_load_and_use_known_features():
    if not WEIGHTS_FILE.is_file():
        pytest.skip("no fitted weights shipped")
    model = load_model()
    assert set(model.names) <= set(FEATURES) and 0.0 < model.threshold < 1.0


def test_fitting_recovers_the_direction_that_separates():
    fit = _fitting()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 2))
    y = (x[:, 0] - 0.5 * x[:, 1] + 0.3 * rng.normal(size=400) > 0).astype(float)
    beta = fit._fit_logistic(np.hstack([np.ones((400, 1)), x]), y, np.ones(400))
    assert beta[1] > 1.0 and beta[2] < -0.3 and abs(beta[0]) < 0.5


@pytest.mark.parametrize(
    "p, decides, refused_anyway, bound, threshold",
    [
        # one of four answerable questions may be refused: the model refuses the one at 0.2
        ([0.9, 0.8, 0.2, 0.5], [True] * 4, [False] * 4, 0.25, 0.5),
        # retrieval already refused one: the model may refuse none
        ([0.9, 0.8, 0.2, 0.0], [True, True, True, False], [False, False, False, True], 0.25, 0.2),
        # a question the model does not decide counts whatever its p
        ([0.9, 0.1, 0.3], [True, False, True], [False, False, False], 0.34, 0.9),
        # even answering all the model decides exceeds the bound: answer all of them
        ([0.9, 0.0], [True, False], [False, True], 0.1, 0.0),
    ],
)
def test_operating_point_refuses_as_much_as_the_false_refusal_bound_allows(
    p, decides, refused_anyway, bound, threshold
):
    fit = _fitting()
    chosen = fit.operating_point(np.array(p), np.array(decides), np.array(refused_anyway), bound)
    assert chosen == threshold


@pytest.mark.parametrize(
    "row, model_refuses, refused",
    [
        ({"refused_by": "retrieval"}, False, True),
        ({"refused_by": None, "rules_reason": "missing:date", "features": {}}, False, True),
        ({"refused_by": None, "rules_refused": False, "features": {"no_subject": 1.0}}, True, False),
        ({"refused_by": None, "rules_refused": True, "features": {"no_subject": 1.0}}, False, True),
        ({"refused_by": None, "features": {"no_subject": 0.0}}, True, True),
        ({"refused_by": None, "features": {"no_subject": 0.0}}, False, False),
    ],
)
def test_a_collected_row_is_refused_as_the_composer_would(row, model_refuses, refused):
    """Retrieval's floor and the kept rules refuse before the model; a question without
    subject words is the rules' to decide (compose.compose)."""

    class Model:
        def answers(self, features):
            return not model_refuses

    assert _fitting().refused_with(Model(), row) is refused


@dataclass(frozen=True)
class Hit:
    relevance: float | None


@pytest.mark.parametrize(
    "hits, expected",
    [
        ([Hit(0.2), Hit(0.6), Hit(0.4)], 0.6),
        ([Hit(None), Hit(0.3)], 0.3),
        ([Hit(None)], None),  # a ranker that does not measure it: unknown, weighed at its mean
        ([], None),
    ],
)
def test_retrieval_relevance_is_the_best_the_ranker_measured(hits, expected):
    assert retrieval_relevance(hits) == expected


def test_retrieval_relevance_is_a_feature_of_the_decision():
    ranked = [Unit(0.5, 0.1, 1.0)]
    assert decision_features(ranked, [], False, 2, False, False, 0.12, relevance=0.42)["retrieval_relevance"] == 0.42
    assert decision_features(ranked, [], False, 2, False, False, 0.12)["retrieval_relevance"] is None
