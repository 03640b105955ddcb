"""Which of the likeliest passages answers? Each read again whole, then chosen by a fitted model.

The passage model (passages.py) rates a run of units from what was measured of each unit on
its own. A run read whole says more: E5 embeds it as one passage, the question's tokens
find their matches in the context of the sentences around them, and the passage's vector
meets the question's as in retrieval. So the few runs the passage model rates highest are
embedded whole, and a second small conditional logistic model, fitted by
`scripts/fit_passages.py` on the same training questions (label: the run's text holds the
reference answer), chooses among them on the passage model's rating and these two
measurements. Embedding costs 10-20 ms a run on 2 cores, so only a few are read: at most
`PARAMS.reread_runs`, those rated within `PARAMS.reread_reach` of the best (none when the
best stands alone). A run of one unit is not embedded again: its unit's own measurement,
taken among its source's units, is its whole reading. Pure functions, plus the weights file.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from courserag.answers.extractive.logistic import Logistic, parsed_weights, read_weights

if TYPE_CHECKING:
    from courserag.answers.extractive.candidate import UnitSimilarity
    from courserag.answers.extractive.passages import Passage

WEIGHTS_FILE = Path(__file__).with_name("reread_weights.json")

# The features, in the order of the weights file: plain numbers about one run among the
# question's likeliest runs. None names a word, a course or a set.
FEATURES = (
    "rating_gap",  # the passage model's rating less the best rating (<= 0)
    "meaning",  # the whole run's similarity to the question above its floor
    "meaning_gap",  # that similarity less the best among the runs read (<= 0)
    "token_match",  # the question's tokens each matched in the run read whole (E5 token states)
    "token_gap",  # that match less the best among the runs read (<= 0)
)


class RereadModel(Logistic):
    """The score of a run read whole among the runs read (only the order counts)."""

    @staticmethod
    def from_dict(data: Mapping) -> "RereadModel":
        return RereadModel(*parsed_weights(data, FEATURES, "reread"))


@lru_cache(maxsize=4)
def load_reread_model(path: Path = WEIGHTS_FILE) -> RereadModel | None:
    """The shipped model, or None when the file is absent (the passage model alone chooses)."""
    return read_weights(path, RereadModel.from_dict)


def run_text(run: Passage) -> str:
    """What is embedded of a run: its units' text, as the answer quotes them."""
    return " ".join(c.unit.text for c in run.units)


def reread_features(
    ratings: Sequence[float], runs: Sequence[Passage], similarity: UnitSimilarity, floor: float
) -> list[dict[str, float | None]]:
    """The model's features of each run read whole, in the order given (`ratings` are the
    passage model's). The gaps are relative to the runs read, so they are computed together."""
    if not runs:
        return []
    meaning, matched = _measured(runs, similarity, floor)
    best_rating, best_meaning = max(ratings), max(meaning)
    best_match = max((t for t in matched if t is not None), default=None)
    return [
        {
            "rating_gap": rating - best_rating,
            "meaning": m - floor,
            "meaning_gap": m - best_meaning,
            # Unknown without token states (an embedder that gives none): it weighs nothing.
            "token_match": t,
            "token_gap": None if t is None else t - best_match,
        }
        for rating, m, t in zip(ratings, meaning, matched)
    ]


def _measured(
    runs: Sequence[Passage], similarity: UnitSimilarity, floor: float
) -> tuple[list[float], list[float | None]]:
    """Each run's similarity to the question and token match, read whole. A run of one unit
    was read whole already, among its source's units (compose.py), and is taken from there:
    only runs of several units, which fit the passage budget, are embedded. A run longer than
    the budget is always a single unit, so the second look never embeds a long text."""
    longer = [run for run in runs if len(run.units) > 1]
    found = similarity([run_text(run) for run in longer]) if longer else None
    whole_meaning = iter(getattr(found, "meaning", found) if longer else ())
    tokens = getattr(found, "tokens", None)
    whole_tokens = iter(tokens) if tokens is not None else None
    meaning: list[float] = []
    matched: list[float | None] = []
    for run in runs:
        if len(run.units) == 1:
            unit = run.units[0]
            meaning.append(unit.margin + floor)
            matched.append((unit.features or {}).get("token_match"))
        else:  # the next of the longer runs, in the same order
            meaning.append(float(next(whole_meaning)))
            matched.append(float(next(whole_tokens)) if whole_tokens is not None else None)
    return meaning, matched


def reread_choice(
    model: RereadModel, similarity: UnitSimilarity, floor: float
) -> Callable[[Sequence[float], Sequence[Passage]], list[float]]:
    """The passage choice's second look (passages.best_passages): the reread model's score
    of each of the likeliest runs."""

    def scores(ratings: Sequence[float], runs: Sequence[Passage]) -> list[float]:
        return [model.logit(f) for f in reread_features(ratings, runs, similarity, floor)]

    return scores
