"""compare_weights: the reproduction check's pure part (training/reader/compare.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from training.reader.compare import compare_weights

A = {"w": np.array([[1.0, -2.0], [0.5, 4.0]]), "b": np.array([0.1, 0.0])}


@pytest.mark.parametrize(
    ("b", "identical", "within_one_percent", "worst"),
    [
        (A, True, True, ("b", 0.0)),
        ({"w": A["w"] + 0.02, "b": A["b"]}, False, True, ("w", 0.02 / 4.02)),  # 0.5% of the largest entry
        ({"w": A["w"], "b": A["b"] + 0.002}, False, False, ("b", 0.002 / 0.102)),  # 2% of the bias's own scale
        ({"w": A["w"] * 1.1, "b": A["b"]}, False, False, ("w", 0.4 / 4.4)),
        ({"w": A["w"][:1], "b": A["b"]}, False, False, ("w", math.inf)),  # another shape
    ],
)
def test_each_tensor_is_judged_against_its_own_magnitude(b, identical, within_one_percent, worst):
    comparison = compare_weights(A, b)
    assert comparison.identical is identical
    assert comparison.within(0.01) is within_one_percent
    assert (comparison.worst.name, comparison.worst.relative) == (worst[0], pytest.approx(worst[1]))


def test_a_tensor_only_one_side_has_is_never_a_reproduction():
    comparison = compare_weights(A, {"w": A["w"]})
    assert comparison.only_in_a == ("b",) and not comparison.within(1.0) and not comparison.identical
    assert comparison.summary()["only_in_a"] == ["b"]


def test_two_zero_tensors_are_the_same_and_zero_against_nonzero_is_not():
    zero = {"z": np.zeros(3)}
    assert compare_weights(zero, zero).within(0.0)
    assert compare_weights(zero, {"z": np.array([0.0, 1e-9, 0.0])}).worst.relative == 1.0
