"""Exact match and F1 (training/reader/metrics.py): SQuAD's rules in English, characters in Chinese."""

from __future__ import annotations

import pytest

from training.reader.metrics import answer_tokens, best_scores, exact_match, f1


@pytest.mark.parametrize(
    ("text", "lang", "tokens"),
    [
        ("The  Eiffel Tower!", "en", ["eiffel", "tower"]),
        ("an apple, a pear", "en", ["apple", "pear"]),
        ("宪法保障宗教自由。", "zh", list("宪法保障宗教自由")),
        ("在 CSC3100 里", "zh", ["在", "csc3100", "里"]),
        ("２１００万", "zh", ["2100", "万"]),
        ("夜柔吠陀", "zh-Hant", list("夜柔吠陀")),
    ],
)
def test_answer_tokens(text, lang, tokens):
    assert answer_tokens(text, lang) == tokens


@pytest.mark.parametrize(
    ("prediction", "reference", "lang", "em", "f1_score"),
    [
        ("the Eiffel Tower", "Eiffel Tower.", "en", 1.0, 1.0),
        ("Eiffel", "Eiffel Tower", "en", 0.0, 2 / 3),
        ("Paris", "Eiffel Tower", "en", 0.0, 0.0),
        ("宪法保障", "宪法保障宗教自由", "zh", 0.0, 2 * 1 * 0.5 / 1.5),
        ("宪法保障宗教自由。", "宪法保障宗教自由", "zh", 1.0, 1.0),
        ("", "", "en", 1.0, 1.0),  # unanswerable, and nothing said
        ("LH-1", "", "en", 0.0, 0.0),  # unanswerable, but answered
        ("", "LH-1", "en", 0.0, 0.0),
    ],
)
def test_exact_match_and_f1(prediction, reference, lang, em, f1_score):
    assert exact_match(prediction, reference, lang) == em
    assert f1(prediction, reference, lang) == pytest.approx(f1_score)


def test_the_best_reference_counts_and_none_means_unanswerable():
    assert best_scores("Tower", ["Paris", "Eiffel Tower"], "en") == (0.0, pytest.approx(2 / 3))
    assert best_scores("", [], "en") == (1.0, 1.0)
    assert best_scores("Paris", [], "en") == (0.0, 0.0)
