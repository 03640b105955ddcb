"""What a reader's manifest calibrates: which spans an answer quotes and when it refuses
(answers/extractive/read_calibration.py)."""

from __future__ import annotations

import math

import pytest

from courserag.answers.extractive.read_calibration import (
    REFUSAL_FEATURES,
    ReaderCalibration,
    ReadParams,
    refusal_features,
)

# A fitted refusal that trusts the head less across languages: the same probability reads
# higher when the question's script differs from the source's; more when E5 finds the best
# span's unit closer to the question than the fitting questions' mean (0.8); and lower for a
# question in Chinese, whose cosines run higher.
REFUSAL = {
    "names": list(REFUSAL_FEATURES),
    "mean": [0.0, 0.0, 0.0, 0.8, 0.0],
    "scale": [1.0, 1.0, 1.0, 0.1, 1.0],
    "coef": [1.0, 2.0, 0.0, 1.0, -1.5],
    "bias": 0.0,
}
# trial 3's, fitted before the cosine was a feature
WITHOUT_COSINE = {
    **REFUSAL,
    "names": list(REFUSAL_FEATURES[:3]),
    "mean": [0.0] * 3,
    "scale": [1.0] * 3,
    "coef": [1.0, 2.0, 0.0],
}


@pytest.mark.parametrize(
    ("calibration", "threshold", "quotes", "fitted_refusal"),
    [
        ({}, 0.5, ReadParams(), False),  # nothing fitted: the head at 0.5, the default quotes
        ({"threshold": 0.7, "quotes": {"spans": 3, "margin": 2.0, "words": 40}}, 0.7, ReadParams(3, 2.0, 40), False),
        ({"threshold": 0.3, "refusal": REFUSAL}, 0.3, ReadParams(), True),
    ],
)
def test_a_manifest_s_calibration_is_read_whole(calibration, threshold, quotes, fitted_refusal):
    read = ReaderCalibration.from_manifest(calibration)
    assert (read.threshold, read.quotes, read.refusal is not None) == (threshold, quotes, fitted_refusal)


def test_reader_threshold_overrides_the_fitted_one():
    assert ReaderCalibration.from_manifest({"threshold": 0.7}, threshold=0.2).threshold == 0.2


def test_a_refusal_naming_a_feature_the_code_does_not_compute_is_rejected():
    with pytest.raises(ValueError, match="unknown reader refusal features"):
        ReaderCalibration.from_manifest({"refusal": {**REFUSAL, "names": ["answerable_logit", "across", "length"]}})


def sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


@pytest.mark.parametrize(
    ("answerable", "across", "cosine", "chinese", "confidence"),
    [
        (0.3, False, None, False, 0.3),  # the head's own probability: logit(0.3) through coef 1
        (0.3, True, None, False, sigmoid(math.log(0.3 / 0.7) + 2.0)),  # raised across languages
        (0.3, False, 0.9, False, sigmoid(math.log(0.3 / 0.7) + 1.0)),  # raised by a close unit
        (0.3, False, 0.7, False, sigmoid(math.log(0.3 / 0.7) - 1.0)),  # lowered by a far one
        (0.3, False, 0.9, True, sigmoid(math.log(0.3 / 0.7) + 1.0 - 1.5)),  # less in Chinese
    ],
)
def test_the_fitted_refusal_reads_the_head_by_language_situation_and_e5_s_cosine(
    answerable, across, cosine, chinese, confidence
):
    calibration = ReaderCalibration.from_manifest({"refusal": REFUSAL})
    assert calibration.confidence(answerable, across, cosine, chinese) == pytest.approx(confidence)


@pytest.mark.parametrize(
    ("calibration", "weighs"),
    [
        ({}, False),
        ({"refusal": WITHOUT_COSINE}, False),
        ({"refusal": REFUSAL}, True),  # the refusal reads the cosine
        ({"quotes": {"spans": 2, "margin": 1.0, "words": 80, "similarity": 100.0}}, True),  # the quotes do
    ],
)
def test_cosines_are_measured_only_for_a_calibration_that_weighs_them(calibration, weighs):
    assert ReaderCalibration.from_manifest(calibration).weighs_cosines is weighs


def test_without_a_fitted_refusal_the_head_s_probability_decides():
    assert ReaderCalibration().confidence(0.42, True) == 0.42


def test_the_refusal_features_are_the_head_s_logit_alone_and_across_languages_and_the_script():
    assert refusal_features(0.5, True) == {
        "answerable_logit": 0.0,
        "across": 1.0,
        "answerable_logit_across": 0.0,
        "cosine": None,
        "chinese": 0.0,
    }
    assert refusal_features(0.5, False, 0.8, chinese=True)["chinese"] == 1.0
    assert refusal_features(1.0, False)["answerable_logit"] == pytest.approx(math.log((1 - 1e-6) / 1e-6))
