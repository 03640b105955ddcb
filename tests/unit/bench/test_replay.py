"""The replay harness picks its questions as it says: evenly, fit and held apart, never a test split."""

import pytest

from bench.replay import SHARED, SOURCES, questions, spread


@pytest.mark.parametrize(
    "items, n, expected",
    [
        (list(range(10)), 5, [0, 2, 4, 6, 8]),
        (list(range(10)), 3, [0, 3, 6]),
        (list(range(3)), 5, [0, 1, 2]),  # fewer than asked: all of them
        ([], 2, []),
    ],
)
def test_spread_takes_evenly(items, n, expected):
    assert spread(items, n) == expected


needs_data = pytest.mark.skipif(not (SHARED / "syllabusqa_dev").is_dir(), reason="the shared sets are not here")


@needs_data
@pytest.mark.parametrize("name", sorted({s[0] for s in SOURCES}))
def test_fit_and_held_questions_never_meet_and_no_test_split_is_read(name):
    n = {s[2]: s[3] for s in SOURCES if s[0] == name}
    fit, held = questions(name, "fit", n["fit"]), questions(name, "held", n["held"])
    assert fit and held
    assert not {q["qid"] for q in fit} & {q["qid"] for q in held}
    if name == "syllabusqa_dev":
        assert {q["split"] for q in fit} == {"train"} and {q["split"] for q in held} == {"val"}
    else:  # whole titles apart, so a held-out question's passage was never fitted on
        assert not {q["title"] for q in fit} & {q["title"] for q in held}
