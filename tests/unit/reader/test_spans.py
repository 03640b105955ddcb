"""A window's best span and its score over "no span" (courserag/reader/spans.py), as tables."""

from __future__ import annotations

import numpy as np
import pytest

from courserag.reader.spans import best_span, window_span


@pytest.mark.parametrize(
    ("start", "end", "max_tokens", "span"),
    [
        ([0, 3, 1], [0, 1, 4], 48, (1, 2, 7.0)),
        ([0, 3, 1], [0, 1, 4], 1, (2, 2, 5.0)),  # a span of one token only
        ([5, 0, 0], [0, 0, 5], 48, (0, 2, 10.0)),
        ([0, 0, 5], [5, 0, 1], 48, (2, 2, 6.0)),  # start 2 with end 0 (10) is no span
    ],
)
def test_the_best_span_maximizes_start_plus_end_within_its_length(start, end, max_tokens, span):
    assert best_span(np.array(start, float), np.array(end, float), max_tokens) == span


def test_windows_compare_by_their_margin_over_no_span_not_by_raw_logits():
    # A window sure of nothing scores every span high, <s> higher still; the other is sure.
    loud = window_span(np.array([9.0, 6.0, 5.0]), np.array([9.0, 4.0, 5.0]), slice(1, 3))
    sure = window_span(np.array([-3.0, 2.0, 0.0]), np.array([-3.0, 0.0, 3.0]), slice(1, 3))
    assert loud == (0, 1, 11.0 - 18.0) and sure == (0, 1, 5.0 + 6.0)
    assert sure[2] > loud[2]
