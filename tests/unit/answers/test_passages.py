"""The quoted passage: runs of consecutive units, their features and the fitted choice (issue 19)."""

import math

import pytest

from courserag.answers.extractive.compose import Candidate
from courserag.answers.extractive.params import PARAMS
from courserag.answers.extractive.passages import (
    FEATURES,
    WEIGHTS_FILE,
    Passage,
    PassageModel,
    best_passages,
    budget_for,
    load_passage_model,
    passage_features,
    passages,
)
from courserag.answers.extractive.select import reading_order
from courserag.answers.extractive.units import Unit


def unit(text, n=1, position=0, p=0.0, heading="", margin=0.1, **features):
    base = {"heading_like": 0.0, "needs_met": 0.0, "headed_coverage": 0.5}
    base.update(features)
    return Candidate(
        n, Unit(text, "sentence", position, text, heading), frozenset(), 0.5, margin, 0.0, p=p, features=base
    )


def spans(runs):
    return [(r.units[0].n, r.units[0].unit.position, r.units[-1].unit.position) for r in runs]


WORDS4 = "one two three four."


@pytest.mark.parametrize(
    "units, budget, expected",
    [
        # every run that fits 8 words: single units, and pairs of neighbours
        ([unit(WORDS4, position=i) for i in range(3)], 8, [(1, 0, 0), (1, 0, 1), (1, 1, 1), (1, 1, 2), (1, 2, 2)]),
        # a single unit longer than the budget is still a run of its own
        ([unit("a b c d e f g h i j.", position=0)], 4, [(1, 0, 0)]),
        # a gap in the source ends a run; another source starts its own
        (
            [unit(WORDS4, position=0), unit(WORDS4, position=2), unit(WORDS4, n=2, position=1)],
            20,
            [(1, 0, 0), (1, 2, 2), (2, 1, 1)],
        ),
    ],
)
def test_runs_of_consecutive_units_within_the_budget(units, budget, expected):
    assert spans(passages(units, lambda c: budget)) == expected


def test_runs_are_built_in_source_order_whatever_the_ranking():
    ranked = [unit(WORDS4, position=1, p=2.0), unit(WORDS4, position=0, p=1.0)]
    assert spans(passages(ranked, lambda c: 8)) == [(1, 0, 0), (1, 0, 1), (1, 1, 1)]


def test_a_run_opens_a_section_at_the_start_of_its_source_or_where_the_heading_changes():
    units = [
        unit(WORDS4, position=0, heading="A"),
        unit(WORDS4, position=1, heading="A"),
        unit(WORDS4, position=2, heading="B"),
    ]
    opens = {(r.units[0].unit.position, len(r.units)): r.opens_section for r in passages(units, lambda c: 4)}
    assert opens == {(0, 1): True, (1, 1): False, (2, 1): True}


@pytest.mark.parametrize(
    "text, long_answer, budget",
    [
        ("The final exam is on Tuesday.", False, PARAMS.passage_words),
        ("期末考试在第十六周的星期二上午举行。", False, PARAMS.passage_cjk_words),
        ("The final exam is on Tuesday.", True, PARAMS.max_answer_words),
        ("期末考试（final exam）在 12 月 15 日。", False, PARAMS.passage_cjk_words),
    ],
)
def test_the_budget_counts_what_a_learner_reads(text, long_answer, budget):
    assert budget_for(text, long_answer) == budget


def test_features_name_every_feature_and_weigh_the_runs_share_of_the_unit_probability():
    units = [unit(WORDS4, position=0, p=math.log(3)), unit("Due: ", position=1, p=0.0)]
    runs = passages(units, lambda c: 20)
    rows = passage_features(runs, units, cross_lingual=False)
    assert all(set(r) == set(FEATURES) for r in rows)
    by = {(r.units[0].unit.position, len(r.units)): f for r, f in zip(runs, rows)}
    assert by[(0, 2)]["mass"] == pytest.approx(0.0)  # all of it
    assert by[(0, 1)]["mass"] == pytest.approx(math.log(3 / 4))
    assert by[(1, 1)]["first_gap"] == pytest.approx(-math.log(3))
    assert by[(0, 2)]["ends_on_lead_in"] == 1.0 and by[(0, 1)]["ends_on_lead_in"] == 0.0
    assert by[(0, 2)]["cross_mass"] == 0.0
    assert passage_features(runs, units, cross_lingual=True)[0]["cross_mass"] == rows[0]["mass"]


def test_no_runs_no_features():
    assert passage_features([], [unit(WORDS4)], False) == []


@pytest.mark.parametrize("coef, length", [(1.0, 2), (-1.0, 1)])
def test_the_model_chooses_the_run(coef, length):
    units = [unit(WORDS4, position=0, p=1.0), unit(WORDS4, position=1, p=0.0)]
    model = PassageModel(("units",), (0.0,), (1.0,), (coef,), 0.0)  # longer runs first (+1) or last (-1)
    chosen = best_passages(units, model, cross_lingual=False)[0]
    assert len(chosen.units) == length and chosen.best is units[0]


def test_of_two_equal_runs_the_shorter_is_chosen():
    units = [unit(WORDS4, position=0, p=1.0), unit(WORDS4, position=1, p=0.0)]
    model = PassageModel(("first_gap",), (0.0,), (1.0,), (1.0,), 0.0)  # both runs from unit 0 score alike
    assert len(best_passages(units, model, cross_lingual=False)[0].units) == 1


MASS = PassageModel(("mass",), (0.0,), (1.0,), (1.0,), 0.0)  # the run holding the most unit probability
UNITS = PassageModel(("units",), (0.0,), (1.0,), (1.0,), 0.0)  # the longest run


@pytest.mark.parametrize(
    "units, model, long_answer, expected",
    [
        # the best run, then the likeliest run from elsewhere that fits in what it leaves
        (
            [unit(WORDS4, position=0, p=3.0), unit(WORDS4, position=5, p=2.0), unit(WORDS4, n=2, p=1.0)],
            MASS,
            False,
            [(1, 0, 0), (1, 5, 5)],
        ),
        # a list or a description fills the budget on its own
        ([unit(WORDS4, position=0, p=3.0), unit(WORDS4, position=5, p=2.0)], MASS, True, [(1, 0, 0)]),
        # no room left beside the first
        (
            [unit(" ".join(["word"] * PARAMS.passage_words) + ".", p=3.0), unit(WORDS4, n=2, p=2.0)],
            MASS,
            False,
            [(1, 0, 0)],
        ),
        # runs that share a unit are never both quoted: the two-unit run leaves nothing else
        ([unit(WORDS4, position=0, p=1.0), unit(WORDS4, position=1, p=1.0)], UNITS, False, [(1, 0, 1)]),
    ],
)
def test_a_second_passage_fills_the_room_the_first_leaves(units, model, long_answer, expected):
    assert spans(best_passages(units, model, cross_lingual=False, long_answer=long_answer)) == expected


def test_a_second_passage_must_be_about_the_question():
    units = [unit(WORDS4, position=0, p=3.0), unit(WORDS4, position=5, p=2.0), unit(WORDS4, n=2, p=1.0)]
    off_topic = units[1]
    chosen = best_passages(units, MASS, cross_lingual=False, relevant=lambda c: c is not off_topic)
    assert spans(chosen) == [(1, 0, 0), (2, 0, 0)]


def test_shipped_weights_load_and_name_known_features():
    model = load_passage_model()
    if WEIGHTS_FILE.is_file():
        assert model is not None and set(model.names) <= set(FEATURES)
    else:
        assert model is None


def test_a_passage_knows_its_best_unit():
    low, high = unit(WORDS4, position=0, p=0.5), unit(WORDS4, position=1, p=2.0)
    assert Passage((low, high), 8, True).best is high


@pytest.mark.parametrize(
    "places, best, expected",
    [
        # the best unit's source first, in its own order, then the others by rank
        ([(2, 3), (1, 0), (2, 1)], (2, 3), [(2, 1), (2, 3), (1, 0)]),
        ([(3, 0), (1, 4), (2, 2), (1, 0)], (1, 4), [(1, 0), (1, 4), (2, 2), (3, 0)]),
        ([(1, 2)], (1, 2), [(1, 2)]),
    ],
)
def test_quotes_read_from_the_best_units_source_first(places, best, expected):
    units = [unit(WORDS4, n=n, position=position) for n, position in places]
    first = units[places.index(best)]
    assert [(c.n, c.unit.position) for c in reading_order(units, first)] == expected
