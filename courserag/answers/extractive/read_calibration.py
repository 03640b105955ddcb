"""What was fitted with a reader's weights (scripts/calibrate_reader.py, kept in its manifest's
`calibration`): which spans an answer quotes (`ReadParams`), and when it refuses.

The refusal reads the answerability head's probability, the highest over the windows, through
a logistic fit of it, of whether the question is asked across languages (its script differs
from the best source's), of whether it is written in Chinese, and of E5's cosine of the
question with the unit the best span starts in: the head alone turned down half the
answerable questions across languages at the point that keeps SyllabusQA's within 0.08, and
E5's cosines run higher in Chinese, so a cosine that answers in English does not in Chinese
(docs/DECISIONS.md). Without a fitted refusal the probability itself is compared with the
threshold.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from courserag.answers.extractive.logistic import Logistic, parsed_weights

REFUSAL_FEATURES = ("answerable_logit", "across", "answerable_logit_across", "cosine", "chinese")


@dataclass(frozen=True)
class ReadParams:
    """Which of the reader's spans an answer quotes beside the best one: at most `spans` in
    all, each scoring within `margin` of the best, added while the quotes hold fewer than
    `words` words. A span's score is the reader's plus `similarity` times E5's cosine of the
    question with the unit the span starts in (0: the reader's alone): E5 read the two apart,
    and what it says of their meaning is evidence the reader's span does not hold. The
    default is the point fitted for trial 3."""

    spans: int = 2
    margin: float = 1.0
    words: int = 80
    similarity: float = 0.0


def refusal_features(
    answerable: float, across: bool, cosine: float | None = None, chinese: bool = False
) -> dict[str, float | None]:
    """The refusal's features: the head's probability as a logit, alone and across languages,
    E5's cosine of the question with the best span's unit (None: not measured, which the fit
    takes at its mean), and whether the question is written in Chinese."""
    p = min(max(answerable, 1e-6), 1 - 1e-6)
    logit = math.log(p / (1 - p))
    return {
        "answerable_logit": logit,
        "across": float(across),
        "answerable_logit_across": logit * across,
        "cosine": cosine,
        "chinese": float(chinese),
    }


@dataclass(frozen=True)
class ReaderCalibration:
    """The reader's operating point: answer when `confidence` reaches `threshold`."""

    threshold: float = 0.5
    quotes: ReadParams = field(default_factory=ReadParams)
    refusal: Logistic | None = None

    @property
    def weighs_cosines(self) -> bool:
        """Whether the quotes or the refusal read E5's cosines of the question with the units."""
        return bool(self.quotes.similarity) or (self.refusal is not None and "cosine" in self.refusal.names)

    def confidence(self, answerable: float, across: bool, cosine: float | None = None, chinese: bool = False) -> float:
        """The probability the refusal compares with the threshold."""
        if self.refusal is None:
            return answerable
        return self.refusal.probability(refusal_features(answerable, across, cosine, chinese))

    @staticmethod
    def from_manifest(calibration: Mapping, threshold: float | None = None) -> "ReaderCalibration":
        """From a manifest's `calibration` ({} when none); `threshold` (READER_THRESHOLD)
        overrides the fitted one."""
        refusal = calibration.get("refusal")
        return ReaderCalibration(
            float(threshold if threshold is not None else calibration.get("threshold", 0.5)),
            ReadParams(**calibration["quotes"]) if calibration.get("quotes") else ReadParams(),
            Logistic(*parsed_weights(refusal, REFUSAL_FEATURES, "reader refusal")) if refusal else None,
        )
