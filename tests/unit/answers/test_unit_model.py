"""The fitted unit ranking: its features and its model (issue 19)."""

import math

import pytest

from courserag.answers.extractive.refusal import RefusalModel
from courserag.answers.extractive.unit_model import (
    FEATURES,
    TOKEN_FEATURES,
    VECTORS_WEIGHTS_FILE,
    WEIGHTS_FILE,
    UnitFacts,
    UnitModel,
    load_unit_model,
    shipped_model_for,
    unit_features,
)
from tests.unit.answers.queries import query


def facts(n=1, position=0, kind="sentence", margin=0.1, coverage=0.5, **kw):
    base = dict(
        headed_coverage=coverage,
        needs_met=0.0,
        asks_kind=False,
        rule_yes_no=False,
        heading_like=False,
        words=10,
    )
    base.update(kw)
    return UnitFacts(n, position, kind, margin, coverage, **base)


def test_features_name_every_feature_and_are_relative_to_the_best_unit():
    rows = unit_features([facts(margin=0.2, coverage=1.0), facts(position=1, margin=0.05, coverage=0.2)], False)
    assert all(set(r) == set(FEATURES) for r in rows)
    assert rows[0]["margin_gap"] == 0 and rows[1]["margin_gap"] == pytest.approx(-0.15)
    assert rows[1]["coverage_gap"] == pytest.approx(-0.8)


@pytest.mark.parametrize(
    "units, feature, expected",
    [
        # the restatement is the unit of highest coverage in its source; the next two follow it
        ([facts(coverage=1.0), facts(position=1, coverage=0.1), facts(position=3, coverage=0.1)], "echo", [1, 0, 0]),
        (
            [facts(coverage=1.0), facts(position=1, coverage=0.1), facts(position=3, coverage=0.1)],
            "after_echo",
            [0, 1, 0],
        ),
        ([facts(n=1, coverage=1.0), facts(n=2, position=1, coverage=0.1)], "after_echo", [0, 0]),  # other source
        ([facts(n=12)], "rank", [9]),  # capped
        ([facts(position=40)], "position", [1.0]),
        ([facts(asks_kind=True), facts(asks_kind=True, needs_met=1.0)], "needs_unmet", [1, 0]),
        ([facts(kind="row"), facts(kind="item")], "row", [1, 0]),
        ([facts(words=0)], "log_words", [0.0]),
        # the token match and its gap to the best one; unknown (None) without token states
        ([facts(token_match=0.9), facts(position=1, token_match=0.7)], "token_match", [0.9, 0.7]),
        ([facts(token_match=0.9), facts(position=1, token_match=0.75)], "token_gap", [0.0, -0.15]),
        ([facts(), facts(position=1)], "token_gap", [None, None]),
    ],
)
def test_unit_features(units, feature, expected):
    assert [r[feature] for r in unit_features(units, False)] == pytest.approx(expected)


def test_cross_margin_only_across_languages():
    assert unit_features([facts(margin=0.1)], True)[0]["cross_margin"] == 0.1
    assert unit_features([facts(margin=0.1)], False)[0]["cross_margin"] == 0.0


def test_no_units_no_features():
    assert unit_features([], False) == []


def test_model_is_a_standardised_logistic_regression():
    model = UnitModel(("margin", "coverage"), (0.1, 0.5), (0.1, 0.5), (1.0, -1.0), 0.5)
    row = {"margin": 0.2, "coverage": 1.0}
    assert model.logit(row) == pytest.approx(0.5 + 1.0 - 1.0)
    assert model.probability(row) == pytest.approx(1 / (1 + math.exp(-0.5)))
    assert UnitModel.from_dict(model.to_dict()) == model
    # a feature the embedder cannot measure (None) is taken at its mean: it weighs nothing
    assert model.logit({"margin": None, "coverage": 1.0}) == pytest.approx(0.5 - 1.0)


@pytest.mark.parametrize(
    "data",
    [
        {"names": ["nonsense"], "mean": [0], "scale": [1], "coef": [1], "bias": 0},
        {"names": ["margin"], "mean": [0, 1], "scale": [1], "coef": [1], "bias": 0},
    ],
)
def test_bad_weights_are_refused(data):
    with pytest.raises(ValueError):
        UnitModel.from_dict(data)


def test_shipped_weights_load_and_name_known_features():
    model = load_unit_model()
    if WEIGHTS_FILE.is_file():
        assert model is not None and set(model.names) <= set(FEATURES)
    else:
        assert model is None


def test_an_embedder_without_token_states_gets_the_model_fitted_without_them():
    with_tokens = shipped_model_for(unit_features([facts(token_match=0.8), facts(position=1, token_match=0.7)], False))
    without = shipped_model_for(unit_features([facts(), facts(position=1)], False))
    assert with_tokens == load_unit_model(WEIGHTS_FILE) and without == load_unit_model(VECTORS_WEIGHTS_FILE)
    assert set(TOKEN_FEATURES) <= set(with_tokens.names)
    assert not set(TOKEN_FEATURES) & set(without.names)
    # with the token match the whole vector weighs little; without it, it weighs again
    weight = {m: dict(zip(m.names, m.coef)) for m in (with_tokens, without)}
    assert abs(weight[without]["margin"]) + abs(weight[without]["margin_gap"]) > 10 * (
        abs(weight[with_tokens]["margin"]) + abs(weight[with_tokens]["margin_gap"])
    )


@pytest.mark.parametrize("coef, first", [(1.0, 2), (-1.0, 1)])
def test_a_unit_model_given_orders_the_units(coef, first):
    from courserag.answers.extractive.compose import candidates
    from courserag.records import Chunk, ScoredChunk
    from courserag.retrieval.packing import ContextItem

    def item(n, text):
        return ContextItem(n, ScoredChunk(Chunk.make(text, "notes.md", "Notes", "upload")), text, 12)

    question = "When is the quiz?"
    items = [item(1, "The quiz is on Monday."), item(2, "The quiz is on Friday.")]
    model = UnitModel(("rank",), (0.0,), (1.0,), (coef,), 0.0)  # later sources first (+1) or last (-1)
    ranked = candidates(query(question), items, unit_model=model)
    assert ranked[0].n == first and ranked[0].p == pytest.approx(coef * (first - 1))


def _fit_units():
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "scripts" / "fit_units.py"
    spec = importlib.util.spec_from_file_location("fit_units", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "column, left_out",
    [
        ([0.0] * 999 + [1.0], True),  # one unit in a thousand: cannot be weighed
        ([0.0] * 90 + [1.0] * 10, False),
        ([0.3] * 100, False),  # a constant, but present: standardised to 0, harmless
    ],
)
def test_a_feature_almost_no_fitting_unit_has_is_left_out(column, left_out):
    import numpy as np

    x = np.array([[v, 1.0] for v in column])
    assert _fit_units().unseen_features(x, ("rare", "always")) == (["rare"] if left_out else [])


def test_the_shipped_weights_leave_out_what_the_fitting_rows_lacked():
    model = load_unit_model()
    if model is not None:  # a table row is no evidence either way: no fitting unit was one
        assert dict(zip(model.names, model.coef))["row"] == 0.0


def _item(n, text, doc_type="md"):
    from courserag.records import Chunk, ScoredChunk
    from courserag.retrieval.packing import ContextItem

    return ContextItem(n, ScoredChunk(Chunk.make(text, f"notes.{doc_type}", "Notes", "upload")), text, 12)


def test_a_table_row_is_data_not_a_grid_even_when_mostly_numbers():
    from courserag.answers.extractive.compose import candidates

    table = "| Exam | Weight | Date | Time |\n|---|---|---|---|\n| Final exam | 40% | 2026-12-15 | 09:00-12:00 |"
    question = "When is the final exam?"
    (row,) = [c for c in candidates(query(question), [_item(1, table)]) if c.unit.kind == "row"]
    assert row.features["heading_like"] == 0.0


@pytest.mark.parametrize("question", ["When is the quiz?", "What is the Wi-Fi password?"])
def test_whether_to_answer_depends_on_the_unit_model_only_through_its_scores_not_its_order(question):
    """The refusal model reads the hand-set order's numbers and, of the unit model, its best
    score and the share of probability on it (refusal.py: best_unit_logit, best_unit_share):
    two unit models that order the units oppositely with the same scores decide alike."""
    from courserag.answers.extractive import compose

    items = [_item(1, "The quiz is on Monday."), _item(2, "The quiz is on Friday in Room A-101.")]

    def similarity(texts):
        return [0.1 + 0.01 * len(t) / 10 for t in texts]

    decisions = set()
    for coef, bias in ((1.0, 0.0), (-1.0, 1.0)):  # later sources first, or last; the best scores 1 either way
        model = UnitModel(("rank",), (0.0,), (1.0,), (coef,), bias)
        said = compose(query(question), items, similarity, unit_model=model)
        decisions.add((said.refused, said.reason, said.features))
        assert dict(said.features)["best_unit_logit"] == 1.0
        assert dict(said.features)["best_unit_share"] == pytest.approx(1 / (1 + math.exp(-1)))
    assert len(decisions) == 1


def test_the_fact_line_comes_from_the_best_quote_only():
    from courserag.answers.extractive import compose

    question = "How many pages may the report have?"
    items = [_item(1, "The report may have at most 4 pages. Late reports lose 20% and 50% after a day.")]

    def similarity(texts):  # the second sentence is the best one, and holds two numbers
        return [0.1 if "at most" in t else 0.3 for t in texts]

    model = UnitModel(("margin",), (0.0,), (1.0,), (1.0,), 0.0)
    answers = RefusalModel((), (), (), (), 0.0, 0.0)  # whether to answer is not what is tested here
    said = compose(query(question), items, similarity, unit_model=model, refusal_model=answers)
    assert not said.refused
    assert said.fact is None  # the best quote holds two numbers; not the 4 of the other one


def test_each_source_is_measured_whole_and_on_its_own():
    """The composer asks for one source's units per call, the same whatever else is cited,
    so kept unit vectors (embedders/groups.py) are those a fresh embedding gives."""
    from courserag.answers.extractive.compose import candidates
    from courserag.answers.extractive.units import source_units

    first = _item(1, "The quiz is on Monday. Bring a pencil.")
    second = _item(2, "The quiz is on Friday in Room A-101. It takes an hour.")
    calls = []

    def similarity(texts):
        calls.append(list(texts))
        return [0.1] * len(texts)

    question = "When is the quiz?"
    for items in ([first, second], [second]):
        candidates(query(question), items, similarity)
    whole = [[u.text for u in source_units(i.text, "md", i.hit.chunk.locator)] for i in (first, second)]
    assert calls == [whole[0], whole[1], whole[1]]
