"""Which passage answers? Runs of consecutive units weighed by a model fitted on real questions.

A learner asking "What are the details on homework?" wants the few sentences the syllabus
gives under that heading, not its best sentence and two others picked from elsewhere, and
"When does class start?" wants the sentence that says so with the one after it that
completes it. So an answer quotes one passage: a run of consecutive units of one source
within a word budget. Every such run is a candidate; a conditional logistic model over a
few general measurements of it (how much of the unit model's probability it holds, where
its best unit stands, its length, whether it opens a section or ends on a lead-in, how much
of the question's subject it names) picks one. The weights are fitted by
`scripts/fit_passages.py` on SyllabusQA's train split and the fitting titles of SQuAD,
CMRC 2018 and XQuAD, the label being whether the run's text holds the reference answer
(answer_eval.py's judge); they replace the hand-set reaches by which neighbours used to be
added (select.py keeps them for the path without an embedder). Pure functions, plus the
weights file.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from courserag.answers.extractive.answer_shape import words_in
from courserag.answers.extractive.logistic import Logistic, parsed_weights, read_weights
from courserag.answers.extractive.params import PARAMS
from courserag.lang.script import IDEOGRAPH

if TYPE_CHECKING:
    from courserag.answers.extractive.candidate import Candidate

WEIGHTS_FILE = Path(__file__).with_name("passage_weights.json")

# The features, in the order of the weights file: plain numbers about one run of units
# among the question's candidate runs. None names a word, a course or a set.
FEATURES = (
    "mass",  # log of the share of the unit model's probability the run's units hold
    "max_gap",  # its best unit's score less the best score of all units (<= 0)
    "first_gap",  # the same for its first unit: does it open on what answers?
    "first_margin_gap",  # its first unit's similarity margin less the best margin (<= 0)
    "log_words",  # log(1 + its length in answer words)
    "units",  # how many units it holds
    "rank",  # its source's rank (0: the top cited text), at most 9
    "position",  # its first unit's place in the source, at most 20, over 20
    "opens_section",  # it starts a source or a section (its heading differs from the unit before)
    "lead_in",  # its first unit ends on a colon: a lead-in with what it introduces
    "ends_on_lead_in",  # its last unit ends on a colon: what it introduces is left out
    "first_heading_like",  # its first unit reads as a heading, a contents line or a grid
    "needs_met",  # the best share of the asked kinds of fact one of its units holds
    "max_coverage",  # the best subject coverage (with the heading) of its units
    "first_coverage",  # its first unit's subject coverage (with the heading)
    "cross_mass",  # `mass` on a question across languages (its unit scores run flatter)
)

_LEAD_IN = re.compile(r"[:：]\s*$")


@dataclass(frozen=True)
class Passage:
    """Consecutive units of one source, in source order, and how they begin."""

    units: tuple[Candidate, ...]
    words: int
    opens_section: bool

    @property
    def best(self) -> Candidate:
        """Its unit the unit model rates highest."""
        return max(self.units, key=lambda c: c.p)


class PassageModel(Logistic):
    """The score of a run among the question's runs (only the order counts)."""

    @staticmethod
    def from_dict(data: Mapping) -> "PassageModel":
        return PassageModel(*parsed_weights(data, FEATURES, "passage"))


@lru_cache(maxsize=4)
def load_passage_model(path: Path = WEIGHTS_FILE) -> PassageModel | None:
    """The shipped model, or None when the file is absent (select.py's rules choose)."""
    return read_weights(path, PassageModel.from_dict)


def budget_for(text: str, long_answer: bool = False) -> int:
    """A passage's word budget: a CJK character counts as a word in the budget but says
    less than an English word, so CJK text gets more of them; a list or a description
    (`Ask.long_answer`) may fill what a learner reads of an answer."""
    if long_answer:
        return PARAMS.max_answer_words
    cjk = len(IDEOGRAPH.findall(text)) > words_in(text) / 2
    return PARAMS.passage_cjk_words if cjk else PARAMS.passage_words


def passages(ranked: Sequence[Candidate], budget: Callable[[Candidate], int]) -> list[Passage]:
    """Every run of consecutive units of one source that fits the budget of its first unit
    (a single unit always does), in source order."""
    lengths = {id(c): words_in(c.unit.text) for c in ranked}
    out: list[Passage] = []
    by_source = sorted(ranked, key=lambda c: (c.n, c.unit.position))
    for _, group in groupby(by_source, key=lambda c: c.n):
        units = list(group)
        for start, first in enumerate(units):
            opens = start == 0 or _opens_section(units[start - 1], first)
            limit, words = budget(first), 0
            for end in range(start, len(units)):
                if end > start and units[end].unit.position != units[end - 1].unit.position + 1:
                    break
                words += lengths[id(units[end])]
                if end > start and words > limit:
                    break
                out.append(Passage(tuple(units[start : end + 1]), words, opens))
    return out


def _opens_section(before: Candidate, unit: Candidate) -> bool:
    return unit.unit.position != before.unit.position + 1 or unit.unit.heading != before.unit.heading


def passage_features(
    runs: Sequence[Passage], ranked: Sequence[Candidate], cross_lingual: bool
) -> list[dict[str, float]]:
    """The model's features of every run of one question; the gaps and the mass are relative
    to all the question's units, so they are computed together."""
    if not runs:
        return []
    top = max(c.p for c in ranked)
    total = sum(math.exp(c.p - top) for c in ranked)
    best_margin = max(c.margin for c in ranked)
    out = []
    for run in runs:
        first, last = run.units[0], run.units[-1]
        mass = math.log(sum(math.exp(c.p - top) for c in run.units) / total)
        facts = [c.features or {} for c in run.units]
        out.append(
            {
                "mass": mass,
                "max_gap": max(c.p for c in run.units) - top,
                "first_gap": first.p - top,
                "first_margin_gap": first.margin - best_margin,
                "log_words": math.log1p(run.words),
                "units": float(len(run.units)),
                "rank": float(min(first.n - 1, 9)),
                "position": min(first.unit.position, 20) / 20,
                "opens_section": float(run.opens_section),
                "lead_in": float(bool(_LEAD_IN.search(first.unit.text))),
                "ends_on_lead_in": float(bool(_LEAD_IN.search(last.unit.text))),
                "first_heading_like": facts[0].get("heading_like", 0.0),
                "needs_met": max(f.get("needs_met", 0.0) for f in facts),
                "max_coverage": max(f.get("headed_coverage", 0.0) for f in facts),
                "first_coverage": facts[0].get("headed_coverage", 0.0),
                "cross_mass": mass if cross_lingual else 0.0,
            }
        )
    return out


def best_passages(
    ranked: Sequence[Candidate],
    model: PassageModel,
    cross_lingual: bool,
    long_answer: bool = False,
    relevant: Callable[[Candidate], bool] = lambda c: True,
    reread: Callable[[Sequence[float], Sequence[Passage]], list[float]] | None = None,
) -> list[Passage]:
    """The run the model rates highest (the shorter of two equal ones) or, given `reread`,
    the one it rates highest among the PARAMS.reread_runs likeliest read whole, those rated
    within PARAMS.reread_reach of the best (reread.py);
    then, unless a list or a description fills the budget on its own, the run the model
    rates highest among those that fit in what the first leaves of its budget, from
    elsewhere: a one-sentence answer leaves room for the second likeliest place, at no more
    words than a longer first run would take (docs/DECISIONS.md, "A description asked for,
    and a second passage…")."""
    runs = passages(ranked, lambda c: budget_for(c.unit.text, long_answer))
    scored = list(zip([model.logit(f) for f in passage_features(runs, ranked, cross_lingual)], runs))
    best = max(scored, key=_rated)[1]
    if reread is not None:
        likeliest = likeliest_runs(scored, PARAMS.reread_reach)
        if len(likeliest) > 1:
            again = reread([score for score, _ in likeliest], [run for _, run in likeliest])
            best = max(zip(again, (run for _, run in likeliest)), key=_rated)[1]
    if long_answer:
        return [best]
    room = budget_for(best.units[0].unit.text) - best.words
    taken = {id(c) for c in best.units}  # runs are built from the same units: sharing one is overlapping
    others = [
        (score, run)
        for score, run in scored
        if run.words <= room and not any(id(c) in taken for c in run.units) and relevant(run.best)
    ]
    return [best, max(others, key=_rated)[1]] if others else [best]


def likeliest_runs(scored: Sequence[tuple[float, Passage]], reach: float) -> list[tuple[float, Passage]]:
    """The PARAMS.reread_runs (rating, run) pairs rated highest, best first, of those rated
    within `reach` of the best: what the second look reads (reread.py)."""
    top = max(score for score, _ in scored)
    return [pair for pair in sorted(scored, key=_rated, reverse=True)[: PARAMS.reread_runs] if pair[0] >= top - reach]


def _rated(scored: tuple[float, Passage]) -> tuple[float, int]:
    """A run's rank: its score, then the fewer units."""
    return scored[0], -len(scored[1].units)
