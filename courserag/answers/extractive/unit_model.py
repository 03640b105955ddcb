"""Which unit answers? A logistic model over a few general features, fitted on real questions.

The composer used to rank units by a hand-set sum (half words, half meaning, 0.35 for the
kind of fact asked, 0.04 a source rank, 0.004 a position, 0.15 for a rule on a yes/no, the
heading's words at half weight). Each constant had been chosen on course_qa_dev. Here the
same evidence, and a little more (where the unit stands next to the sentence that restates
the question, whether it reads like a heading or a contents line), is weighed by a model
fitted on training questions only: SyllabusQA's train split and the fitting titles of
SQuAD, cmrc2018 and XQuAD (`scripts/fit_units.py`, which reproduces unit_weights.json). A
unit's label was whether it holds the reference answer (answer_eval.py's judge on its text
alone). It orders the quotes by default (docs/DECISIONS.md, "The fitted unit order").
Its strongest feature is the token match (embedders/groups.py): how well each of the
question's E5 tokens finds its match in the unit, which reads a short fact ("Quizzes (10
total)") and a sentence across languages better than one vector of each; with it the whole
vector's margin weighs next to nothing (docs/DECISIONS.md, "Token match").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Sequence

from courserag.answers.extractive.logistic import Logistic, parsed_weights, read_weights

WEIGHTS_FILE = Path(__file__).with_name("unit_weights.json")
# The same model fitted without the token match, for an embedder that gives no token states
# (MiniLM, USE alone): with the token match the whole vector's margin weighs next to nothing,
# so such an embedder would rank units by their words alone.
VECTORS_WEIGHTS_FILE = Path(__file__).with_name("unit_weights_vectors.json")
TOKEN_FEATURES = ("token_match", "token_gap")

# The features, in the order of the weights file; each is a plain number about one unit
# among the question's scored units. None names a word, a course or a set.
FEATURES = (
    "margin",  # similarity to the question above its floor (E5 query/passage)
    "margin_gap",  # that margin less the best margin among the scored units (<= 0)
    "token_match",  # how well the question's tokens each find their match in the unit (E5 token states)
    "token_gap",  # that match less the best among the scored units (<= 0)
    "cross_margin",  # the margin on a question across languages (their margins run lower)
    "coverage",  # share of the question's subject words in the unit's own context
    "headed_coverage",  # the same, with its section heading's words
    "coverage_gap",  # coverage less the best coverage among the scored units (<= 0)
    "needs_met",  # share of the asked kinds of fact (date, number, name…) the unit holds
    "needs_unmet",  # a kind was asked for and the unit holds none of them
    "rule_yes_no",  # a yes/no question and the unit states a rule
    "echo",  # the unit that restates the question best in its source (highest coverage)
    "after_echo",  # one or two units after that restatement, in the same source
    "heading_like",  # reads as a heading, a contents line or a grid line (shape.py)
    "rank",  # its source's rank (0: the top cited text), at most 9
    "position",  # its place in its source, at most 20, over 20
    "log_words",  # log(1 + its length in words, a CJK character counting one)
    "item",  # a list item
    "row",  # a table row
)


class UnitModel(Logistic):
    """p(holds the answer) from the standardised logistic model."""

    @staticmethod
    def from_dict(data: Mapping) -> "UnitModel":
        return UnitModel(*parsed_weights(data, FEATURES, "unit"))


@lru_cache(maxsize=4)
def load_unit_model(path: Path = WEIGHTS_FILE) -> UnitModel | None:
    """The shipped model, or None when the file is absent (the hand-set sum ranks)."""
    return read_weights(path, UnitModel.from_dict)


def shipped_model_for(features: Sequence[Mapping[str, float | None]]) -> UnitModel | None:
    """The shipped model that fits what was measured: with the token match where the
    embedder gave token states, without it where it gave none."""
    tokens = any(f.get("token_match") is not None for f in features)
    return load_unit_model(WEIGHTS_FILE if tokens else VECTORS_WEIGHTS_FILE)


@dataclass(frozen=True)
class UnitFacts:
    """What the composer measured of one unit, before it is compared with the others."""

    n: int  # its source's rank, from 1
    position: int
    kind: str
    margin: float
    coverage: float
    headed_coverage: float
    needs_met: float
    asks_kind: bool
    rule_yes_no: bool
    heading_like: bool
    words: int
    token_match: float | None = None  # None: the embedder gives no token states


def unit_features(facts: Sequence[UnitFacts], cross_lingual: bool) -> list[dict[str, float | None]]:
    """The model's features of every unit of one question, in the order given. The gaps and
    the restatement are relative to the other units, so they are computed together."""
    if not facts:
        return []
    best_margin = max(f.margin for f in facts)
    matched = [f.token_match for f in facts if f.token_match is not None]
    best_match = max(matched, default=None)
    best_coverage = max(f.coverage for f in facts)
    echo: dict[int, UnitFacts] = {}
    for f in facts:  # the restatement of each source: its unit of highest coverage
        if f.coverage > 0 and (f.n not in echo or f.coverage > echo[f.n].coverage):
            echo[f.n] = f
    out = []
    for f in facts:
        e = echo.get(f.n)
        out.append(
            {
                "margin": f.margin,
                "margin_gap": f.margin - best_margin,
                # Without token states the feature is unknown and weighs nothing (logistic.py).
                "token_match": f.token_match,
                "token_gap": None if f.token_match is None else f.token_match - best_match,
                "cross_margin": f.margin if cross_lingual else 0.0,
                "coverage": f.coverage,
                "headed_coverage": f.headed_coverage,
                "coverage_gap": f.coverage - best_coverage,
                "needs_met": f.needs_met,
                "needs_unmet": float(f.asks_kind and f.needs_met == 0),
                "rule_yes_no": float(f.rule_yes_no),
                "echo": float(e is f),
                "after_echo": float(e is not None and 1 <= f.position - e.position <= 2),
                "heading_like": float(f.heading_like),
                "rank": float(min(f.n - 1, 9)),
                "position": min(f.position, 20) / 20,
                "log_words": math.log1p(f.words),
                "item": float(f.kind == "item"),
                "row": float(f.kind == "row"),
            }
        )
    return out
