"""Step 4: the metrics: recall@k, MRR@10, refusals, latency percentiles.

A question is answered at rank r when the r-th returned chunk's locator is one of its
`gold_doc_ids`. Ranks count chunks as returned: a passage cut into two chunks can take two
places, as it would on the learner's screen. For the d2l sets `gold_doc_ids` is every
passage of the exercise's section, so R@5 is "section hit@5".

Refusal: the product refuses when retrieval returns no items. "right-course refusals" is the
share of (answerable) questions refused in their own scope; "wrong-course refusals" asks each
question against another title's course and counts refusals there: high is good.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from bench.evaluation.load import Question
from bench.evaluation.systems import RANK_DEPTH


def first_gold_rank(locators: Sequence[str], gold: frozenset[str], depth: int = RANK_DEPTH) -> int | None:
    """1-based rank of the first chunk from a gold passage, None when none in the top `depth`."""
    for rank, locator in enumerate(locators[:depth], start=1):
        if locator in gold:
            return rank
    return None


def percentile(values: Sequence[float], q: float) -> float:
    """numpy's linear percentile (q in [0, 100]); nan for no values."""
    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if values else float("nan")


@dataclass
class SystemResult:
    """Per-question outcomes of one system; metrics are computed from them."""

    name: str
    ranks: list[int | None] = field(default_factory=list)
    refused: list[bool] = field(default_factory=list)
    latency_ms: list[float] = field(default_factory=list)

    def add(self, locators: Sequence[str], gold: frozenset[str], ms: float) -> None:
        self.ranks.append(first_gold_rank(locators, gold))
        self.refused.append(not locators)
        self.latency_ms.append(ms)

    def recall(self, k: int) -> float:
        return sum(1 for r in self.ranks if r is not None and r <= k) / max(1, len(self.ranks))

    @property
    def mrr(self) -> float:
        return sum(1.0 / r for r in self.ranks if r is not None) / max(1, len(self.ranks))

    def metrics(self) -> dict[str, float]:
        return {
            "R@1": self.recall(1),
            "R@5": self.recall(5),
            "MRR@10": self.mrr,
            "refused": sum(self.refused) / max(1, len(self.refused)),
            "p50_ms": percentile(self.latency_ms, 50),
            "p95_ms": percentile(self.latency_ms, 95),
        }


def refusal_rates(
    questions: Sequence[Question], refused: Sequence[bool], wrong_refused: Sequence[bool]
) -> dict[str, float]:
    """Refusals of the configured product in the right course (answerable questions), on
    unanswerable questions (when the set has any) and in the wrong course (when asked)."""
    answerable = [i for i, q in enumerate(questions) if q.answerable is not False]
    unanswerable = [i for i, q in enumerate(questions) if q.answerable is False]
    rates: dict[str, float] = {
        "right_course_refused": sum(refused[i] for i in answerable) / max(1, len(answerable)),
        "unanswerable": float(len(unanswerable)),
    }
    if unanswerable:
        rates["unanswerable_refused"] = sum(refused[i] for i in unanswerable) / len(unanswerable)
    if wrong_refused:
        rates["wrong_course_refused"] = sum(wrong_refused) / len(wrong_refused)
        rates["balanced_refusal_accuracy"] = (rates["wrong_course_refused"] + 1 - rates["right_course_refused"]) / 2
    return rates
