"""Should the composer answer at all? A calibrated decision, not a chain of thresholds.

"Does any quoted unit answer this question?" is answered by a logistic model over a few
general features of the scored units (how far the best sentences sit above the question's
floor, how much of the question's subject they name, whether a unit holds the kind of fact
asked for, whether one unit stands out and how well the question's tokens find their match,
the language situation) and of retrieval (how relevant the best cited text was).
The weights are fitted on real questions, never on the sample courses: SyllabusQA's train
split (its "no answer" questions are negatives), questions asked in a course they are not
about (one shared set's questions in another's courses, negatives too) and the fitting
portions of the Wikipedia sets. `scripts/fit_refusal.py` reproduces refusal_weights.json;
the operating point (`threshold`) is the highest at which SyllabusQA val's answerable
questions refused stay within the issue's 0.08 (docs/EVALUATION.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from courserag.answers.extractive.kinds import accepted
from courserag.answers.extractive.logistic import Logistic, parsed_weights, read_weights

WEIGHTS_FILE = Path(__file__).with_name("refusal_weights.json")
TOP = 8  # units looked at: the best ones by score

# The features, in the order of the weights file. Each is a plain number from the ranked
# candidates; none names a word, a course or a set.
FEATURES = (
    "top_score",  # the best unit's composer score
    "top_margin",  # its similarity to the question above the question's floor
    "max_margin",  # the best margin among the top units
    "best_unit_logit",  # the unit model's best score among all units (0 without a unit model)
    "top_coverage",  # share of the question's subject the best unit (with its heading) names
    "max_coverage",  # the best coverage among the top units
    "need_held",  # share of the asked kinds of fact held by an on-subject top unit (1: none asked)
    "need_held_named",  # the same, by a unit that also names the subject (coverage >= 0.5)
    "asks_kind",  # the question asks for a kind of fact (a date, a place, a number…)
    "yes_no",
    "no_subject",  # the question has no subject words: its meaning must do
    "cross_lingual",
    "chinese",
    "cross_margin",  # max_margin on a cross-lingual question (its margins run lower)
    "subject_words",  # log(1 + number of subject words)
    "retrieval_relevance",  # the best cited text's relevance as retrieval measured it (None: not measured)
    "best_unit_share",  # the unit model's probability on its best unit, among all: one place stands out
    "max_token_match",  # the best token match of a unit (E5 token states; None without them)
)


@dataclass(frozen=True)
class RefusalModel(Logistic):
    """p(answer) from the standardised logistic model, and the operating point chosen on val."""

    threshold: float  # answer when p(answer) >= threshold

    def answers(self, features: Mapping[str, float]) -> bool:
        return self.probability(features) >= self.threshold

    def to_dict(self) -> dict:
        return {**super().to_dict(), "threshold": self.threshold}

    @staticmethod
    def from_dict(data: Mapping) -> "RefusalModel":
        return RefusalModel(*parsed_weights(data, FEATURES, "refusal"), float(data["threshold"]))


@lru_cache(maxsize=4)
def load_model(path: Path = WEIGHTS_FILE) -> RefusalModel | None:
    """The shipped model, or None when the file is absent (the composer's rules decide)."""
    return read_weights(path, RefusalModel.from_dict)


def decision_features(
    ranked: Sequence,
    needs: Sequence[frozenset[str]],
    yes_no: bool,
    subject_words: int,
    cross_lingual: bool,
    chinese: bool,
    on_subject_margin: float,
    min_coverage: float = 0.5,
    relevance: float | None = None,
) -> dict[str, float | None]:
    """The features of one question's ranked candidates (compose.Candidate: score, margin,
    coverage, kinds), best first, and of its retrieval (`relevance`: see retrieval_relevance)."""
    top = list(ranked[:TOP])
    if not top:
        return {name: 0.0 for name in FEATURES}
    best = top[0]
    on_subject = [c for c in top if c.coverage >= min_coverage or c.margin >= on_subject_margin]

    def held(pool: Sequence) -> float:
        if not needs:
            return 1.0
        return sum(1 for need in needs if any(accepted(need) & c.kinds for c in pool)) / len(needs)

    max_margin = max(c.margin for c in top)
    unit_scores = [getattr(c, "p", 0.0) for c in ranked]  # the unit model's, over all the units
    return {
        "best_unit_logit": max(unit_scores),
        "top_score": best.score,
        "top_margin": best.margin,
        "max_margin": max_margin,
        "top_coverage": best.coverage,
        "max_coverage": max(c.coverage for c in top),
        "need_held": held(on_subject),
        "need_held_named": held([c for c in on_subject if c.coverage >= min_coverage]),
        "asks_kind": float(bool(needs)),
        "yes_no": float(yes_no),
        "no_subject": float(subject_words == 0),
        "cross_lingual": float(cross_lingual),
        "chinese": float(chinese),
        "cross_margin": max_margin if cross_lingual else 0.0,
        "subject_words": math.log1p(subject_words),
        "retrieval_relevance": relevance,
        "best_unit_share": _best_share(unit_scores),
        "max_token_match": _best_token_match(ranked),
    }


def _best_share(logits: Sequence[float]) -> float:
    """The softmax share of the largest of the unit model's scores: near 1 when one unit
    stands out, 1/n when n units look alike. On SyllabusQA's fitting questions it is 0.70 on
    average where the answer is right and 0.53 where the syllabus has none; the fitted weight
    reads it beside `best_unit_logit`, the same scores' top."""
    top = max(logits)
    return 1.0 / sum(math.exp(p - top) for p in logits)


def _best_token_match(ranked: Sequence) -> float | None:
    """The highest token match of any unit (each question token's best match in the unit,
    averaged: embedders/groups.py), None where no unit was measured so (an embedder
    without token states): unknown, weighed at its mean."""
    matches = [
        features["token_match"]
        for c in ranked
        if (features := getattr(c, "features", None)) and features.get("token_match") is not None
    ]
    return max(matches, default=None)


def retrieval_relevance(hits: Iterable) -> float | None:
    """The best relevance the ranker gave the cited texts (ScoredChunk.relevance: half word
    share, half similarity margin over the question's floor), None when it measured none.
    Retrieval's gate refuses only below a low floor; above it this is one piece of evidence
    among the others, weighed by the fitted model."""
    known = [h.relevance for h in hits if h.relevance is not None]
    return max(known) if known else None
