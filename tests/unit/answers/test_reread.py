"""The likeliest passages read again whole: their features and the second choice (issue 19)."""

import numpy as np
import pytest

from courserag.answers.extractive.params import PARAMS
from courserag.answers.extractive.passages import Passage, best_passages
from courserag.answers.extractive.reread import (
    FEATURES,
    WEIGHTS_FILE,
    RereadModel,
    load_reread_model,
    reread_choice,
    reread_features,
    run_text,
)
from courserag.embedders.groups import UnitMatches
from tests.unit.answers.test_passages import MASS, UNITS, WORDS4, spans, unit


def whole(measures):
    """A similarity that knows each passage's (cosine, token match) by its text."""
    seen = []

    def similarity(texts):
        seen.append(list(texts))
        meaning = np.array([measures[t][0] for t in texts])
        tokens = [measures[t][1] for t in texts]
        return UnitMatches(meaning, None if None in tokens else np.array(tokens))

    similarity.seen = seen
    return similarity


def run(*texts):
    return Passage(tuple(unit(t, position=i) for i, t in enumerate(texts)), 4 * len(texts), True)


@pytest.mark.parametrize(
    "ratings, measures, expected",
    [
        # gaps to the best of the runs read; the meaning above the question's floor (0.8)
        (
            [2.0, 1.5],
            [(0.86, 0.90), (0.84, 0.95)],
            [
                {"rating_gap": 0.0, "meaning": 0.06, "meaning_gap": 0.0, "token_match": 0.90, "token_gap": -0.05},
                {"rating_gap": -0.5, "meaning": 0.04, "meaning_gap": -0.02, "token_match": 0.95, "token_gap": 0.0},
            ],
        ),
        # an embedder without token states: the token features are unknown and weigh nothing
        (
            [1.0],
            [(0.9, None)],
            [{"rating_gap": 0.0, "meaning": 0.1, "meaning_gap": 0.0, "token_match": None, "token_gap": None}],
        ),
    ],
)
def test_features_of_runs_read_whole(ratings, measures, expected):
    runs = [run(f"run {i}.", "and more.") for i in range(len(ratings))]
    similarity = whole({run_text(r): m for r, m in zip(runs, measures)})
    got = reread_features(ratings, runs, similarity, floor=0.8)
    assert [set(f) for f in got] == [set(FEATURES)] * len(runs)
    for row, want in zip(got, expected):
        assert row == {k: (v if v is None else pytest.approx(v)) for k, v in want.items()}


def test_a_run_of_one_unit_is_not_embedded_again_its_unit_was_read_whole():
    single = Passage((unit("One sentence.", margin=0.07, token_match=0.93),), 2, True)
    pair = run("First sentence.", "Second one.")
    similarity = whole({run_text(pair): (0.85, 0.90)})
    got = reread_features([1.0, 0.5], [single, pair], similarity, floor=0.8)
    assert similarity.seen == [[run_text(pair)]]  # only the longer run is embedded
    assert got[0]["meaning"] == pytest.approx(0.07) and got[0]["token_match"] == 0.93
    assert got[1]["meaning"] == pytest.approx(0.05) and got[1]["token_gap"] == pytest.approx(-0.03)


def test_no_runs_are_read_for_no_runs():
    assert reread_features([], [], whole({}), 0.8) == []


def test_a_run_is_read_as_the_answer_quotes_it():
    assert run_text(run("First sentence.", "Second one.")) == "First sentence. Second one."


TOKENS = RereadModel(("token_match",), (0.0,), (1.0,), (1.0,), 0.0)  # the run whose tokens match best


def test_reading_whole_can_change_the_choice_but_only_among_the_likeliest():
    first = [unit(WORDS4, position=i, p=3.0) for i in range(2)]
    second = [unit("five six seven eight.", n=2, position=i, p=2.0) for i in range(2)]
    texts = {f"{WORDS4} {WORDS4}": (0.8, 0.80), "five six seven eight. five six seven eight.": (0.8, 0.95)}
    similarity = whole(texts)
    units = first + second
    chosen = best_passages(units, UNITS, False, reread=reread_choice(TOKENS, similarity, 0.7))
    assert spans(chosen)[0] == (2, 0, 1)  # the second source's run, read whole, matches best
    assert similarity.seen == [list(texts)]
    assert spans(best_passages(units, UNITS, False))[0] == (1, 0, 1)  # without the second look


def test_one_run_is_not_read_again():
    similarity = whole({})
    chosen = best_passages([unit(WORDS4, p=1.0)], MASS, False, reread=reread_choice(TOKENS, similarity, 0.7))
    assert spans(chosen) == [(1, 0, 0)] and similarity.seen == []


@pytest.mark.parametrize(
    "step, read",
    [
        (0.1, PARAMS.reread_runs),  # many runs rated alike: the likeliest few are read
        (PARAMS.reread_reach * 0.6, 2),  # the third is rated out of reach of the best
        (PARAMS.reread_reach * 1.5, 0),  # the best stands alone: nothing is read again
    ],
)
def test_only_the_likeliest_runs_within_reach_are_read(step, read):
    # single-unit runs whose passage-model rating (their mass) falls by `step` each, each
    # matching the question's tokens a little better than the one before: the choice shows
    # how many were read (a run of one unit is measured from its unit, not embedded)
    units = [
        unit(WORDS4, position=10 * i, p=-step * i, token_match=0.5 + 0.01 * i) for i in range(PARAMS.reread_runs + 3)
    ]
    similarity = whole({})
    chosen = best_passages(units, MASS, False, reread=reread_choice(TOKENS, similarity, 0.7))
    assert similarity.seen == []
    assert chosen[0].units[0].unit.position == 10 * max(read - 1, 0)


def test_shipped_weights_load_and_name_known_features():
    model = load_reread_model()
    if WEIGHTS_FILE.is_file():
        assert model is not None and set(model.names) <= set(FEATURES)
    else:
        assert model is None
